import { randomUUID } from 'node:crypto';
import { type EventMetadata, type ExecutionEvent, type ExecutionEventEnvelope, executionEventDefinitions, parseEvent } from '@onceport/contracts';
import type { JsonObject, NewEvent, StoredEvent } from '@onceport/event-store';

/** Why an event was written: what caused it, who, and the trace it belongs to. */
export interface CausationContext {
  readonly causationId: string;
  readonly actor?: string;
  readonly traceparent?: string | null;
  readonly tracestate?: string | null;
}

/**
 * Wraps a decided event for the store, validated against its schema on the way in (a producer
 * must not write what consumers will refuse).
 */
export function toNewEvent(executionId: string, event: ExecutionEvent, context: CausationContext, now: Date): NewEvent {
  const metadata: EventMetadata = {
    eventId: randomUUID(),
    correlationId: executionId,
    causationId: context.causationId,
    occurredAt: now.toISOString(),
    ...(context.traceparent ? { traceparent: context.traceparent } : {}),
    ...(context.tracestate ? { tracestate: context.tracestate } : {}),
    ...(context.actor ? { actor: context.actor } : {}),
  };
  const schemaVersion = executionEventDefinitions[event.type].schemaVersion;
  const envelope = parseEvent({ type: event.type, schemaVersion, data: event.data, metadata });
  return {
    eventId: metadata.eventId,
    type: envelope.type,
    schemaVersion: envelope.schemaVersion,
    data: envelope.data as unknown as JsonObject,
    metadata: metadata as unknown as JsonObject,
  };
}

/** A stored execution event, validated and upcast to the current schema. */
export function fromStoredEvent(event: StoredEvent): ExecutionEventEnvelope {
  return parseEvent({ type: event.type, schemaVersion: event.schemaVersion, data: event.data, metadata: { ...event.metadata, eventId: event.eventId } });
}
