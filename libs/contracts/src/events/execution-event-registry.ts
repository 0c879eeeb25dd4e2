import { type EventRegistry, createEventRegistry, type SafeParseEventResult } from './event-registry';
import { executionAcceptedPast } from './execution-accepted.event';
import { type ExecutionEventEnvelope, executionEventDefinitions } from './execution-event';
import { type PastVersion } from './past-version';
import { retryAttachedPast } from './retry-attached.event';

/** The superseded versions of each event that has moved past v1, oldest first (the event catalogue documents them too). */
export const executionEventPastVersions: Partial<Record<string, readonly PastVersion[]>> = {
  ExecutionAccepted: executionAcceptedPast,
  RetryAttached: retryAttachedPast,
};

/**
 * The read side of execution events. When an event moves to v2, its entry gets
 * `past: [pastVersion(1, DataV1, upcastV1toV2)]` and old streams keep folding.
 */
export const executionEventRegistry: EventRegistry<ExecutionEventEnvelope> = createEventRegistry(
  Object.values(executionEventDefinitions).map((current) => ({ current, past: executionEventPastVersions[current.type] ?? [] })),
);

/**
 * Validates a stored or received execution event and upcasts it to the current schema version.
 * Throws {@link EventParseError} naming the event type, version and zod path.
 *
 * @example const event = parseEvent(JSON.parse(message.string()));
 */
export function parseEvent(raw: unknown): ExecutionEventEnvelope {
  return executionEventRegistry.parse(raw);
}

/** {@link parseEvent} with the error as a value: `{ success: true, event } | { success: false, error }`. */
export function safeParseEvent(raw: unknown): SafeParseEventResult<ExecutionEventEnvelope> {
  return executionEventRegistry.safeParse(raw);
}
