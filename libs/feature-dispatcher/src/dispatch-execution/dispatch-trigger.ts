import type { ExecutionEventEnvelope } from '@onceport/contracts';

/** The event types the dispatcher consumes; each may leave an execution `authorized`. */
export const DISPATCH_TRIGGER_TYPES = ['ExecutionAuthorized', 'OutcomeSettled', 'DispatchFailedBeforeSend'] as const;

/** What a dispatch was caused by: the event to name as causation and the trace to join. */
export interface DispatchCause {
  readonly eventId: string;
  readonly traceparent: string | null;
  readonly tracestate: string | null;
}

export interface DispatchTrigger {
  readonly executionId: string;
  readonly cause: DispatchCause;
}

/**
 * The execution an event asks to dispatch, or null for one that asks nothing: an unknown outcome
 * settled as anything but `not_applied`, or a failure that may not be retried. A trigger is only a
 * hint; the execution's state decides (a stale or redelivered trigger finds it no longer authorized).
 * Trace context comes from the message headers when present, else from the event itself.
 */
export function dispatchTriggerOf(
  event: ExecutionEventEnvelope,
  headers: { readonly traceparent: string | null; readonly tracestate: string | null },
): DispatchTrigger | null {
  if (!asksForDispatch(event)) return null;
  const traceparent = headers.traceparent ?? event.metadata.traceparent ?? null;
  const tracestate = headers.traceparent ? headers.tracestate : (event.metadata.tracestate ?? null);
  return { executionId: event.data.executionId, cause: { eventId: event.metadata.eventId, traceparent, tracestate } };
}

function asksForDispatch(event: ExecutionEventEnvelope): boolean {
  switch (event.type) {
    case 'ExecutionAuthorized':
      return true;
    case 'OutcomeSettled':
      return event.data.settlement === 'not_applied';
    case 'DispatchFailedBeforeSend':
      return event.data.retryable;
    default:
      return false;
  }
}
