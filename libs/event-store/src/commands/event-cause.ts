import { randomUUID } from 'node:crypto';
import { type EventEnvelope, type EventMetadata } from '@onceport/contracts';
import type { NewEvent } from '../event';
import type { JsonObject } from '../json';

/** Why an event was written: what caused it, who, and the trace it belongs to. */
export interface EventCause {
  /** The event or request that caused it. */
  readonly causationId: string;
  /** What the event belongs to; the stream's own correlation (its execution, the vault) unless given. */
  readonly correlationId?: string;
  readonly actor?: string;
  readonly traceparent?: string | null;
  readonly tracestate?: string | null;
}

/** The metadata every stored event carries: a fresh event id, its correlation and causation, and the trace it belongs to. */
export function eventMetadata(cause: EventCause, correlationId: string, now: Date): EventMetadata {
  return {
    eventId: randomUUID(),
    correlationId: cause.correlationId ?? correlationId,
    causationId: cause.causationId,
    occurredAt: now.toISOString(),
    ...(cause.traceparent ? { traceparent: cause.traceparent } : {}),
    ...(cause.tracestate ? { tracestate: cause.tracestate } : {}),
    ...(cause.actor ? { actor: cause.actor } : {}),
  };
}

/** A validated envelope as the store appends it. */
export function toNewEvent(envelope: EventEnvelope): NewEvent {
  return {
    eventId: envelope.metadata.eventId,
    type: envelope.type,
    schemaVersion: envelope.schemaVersion,
    data: envelope.data as JsonObject,
    metadata: envelope.metadata as unknown as JsonObject,
  };
}
