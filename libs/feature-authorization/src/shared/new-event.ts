import { randomUUID } from 'node:crypto';
import { type EventDefinition, type EventMetadata, createEvent } from '@onceport/contracts';
import { type JsonObject, type NewEvent } from '@onceport/event-store';

export interface EventCause {
  /** Ties the event to what it belongs to: the vault, or the execution whose decision caused it. */
  readonly correlationId: string;
  /** The event or request that caused it. */
  readonly causationId: string;
  readonly actor?: string;
  readonly traceparent?: string | null;
  readonly tracestate?: string | null;
}

/**
 * Wraps vault and session events for the store, validated on the way in (the execution repository
 * does the same for execution events): a producer must not write what its readers will refuse.
 */
export function newEvent<Type extends string, Data>(definition: EventDefinition<Type, Data>, data: Data, cause: EventCause, now: Date): NewEvent {
  const metadata: EventMetadata = {
    eventId: randomUUID(),
    correlationId: cause.correlationId,
    causationId: cause.causationId,
    occurredAt: now.toISOString(),
    ...(cause.traceparent ? { traceparent: cause.traceparent } : {}),
    ...(cause.tracestate ? { tracestate: cause.tracestate } : {}),
    ...(cause.actor ? { actor: cause.actor } : {}),
  };
  const envelope = createEvent(definition, data, metadata);
  return {
    eventId: metadata.eventId,
    type: envelope.type,
    schemaVersion: envelope.schemaVersion,
    data: envelope.data as unknown as JsonObject,
    metadata: metadata as unknown as JsonObject,
  };
}

/** A stored event in the envelope shape the contracts' parsers read. */
export function envelopeOf(stored: { eventId: string; type: string; schemaVersion: number; data: JsonObject; metadata: JsonObject }): unknown {
  return { type: stored.type, schemaVersion: stored.schemaVersion, data: stored.data, metadata: { ...stored.metadata, eventId: stored.eventId } };
}
