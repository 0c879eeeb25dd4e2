import { type ExecutionEventEnvelope, safeParseEvent } from '@onceport/contracts';

/** One event of the traced execution: where it sits in the store, and the event itself if it parses. */
export interface TracedEvent {
  readonly globalPosition: bigint;
  readonly streamVersion: number;
  readonly recordedAt: Date;
  readonly type: string;
  /** Validated and upcast; null when the stored event no longer parses (shown, but not folded). */
  readonly event: ExecutionEventEnvelope | null;
  readonly parseError: string | null;
  /** The W3C trace id its metadata carries (the execution's trace in the tracing backend), or null. */
  readonly traceId: string | null;
}

/** A later call with the same fingerprint, actor and intent scope that became an execution of its own. */
export interface LaterExecution {
  readonly executionId: string;
  readonly agentProcess: string | null;
  readonly clientIdempotencyKey: string | null;
  readonly acceptedAt: string;
  readonly globalPosition: bigint;
}

export interface StoredFields {
  readonly globalPosition: bigint;
  readonly streamVersion: number;
  readonly recordedAt: Date;
  readonly eventId: string;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: unknown;
  readonly metadata: unknown;
}

export function toTracedEvent(stored: StoredFields): TracedEvent {
  const metadata = typeof stored.metadata === 'object' && stored.metadata !== null ? stored.metadata : {};
  const parsed = safeParseEvent({
    type: stored.type,
    schemaVersion: stored.schemaVersion,
    data: stored.data,
    metadata: { ...metadata, eventId: stored.eventId },
  });
  return {
    globalPosition: stored.globalPosition,
    streamVersion: stored.streamVersion,
    recordedAt: stored.recordedAt,
    type: stored.type,
    event: parsed.success ? parsed.event : null,
    parseError: parsed.success ? null : parsed.error.message,
    traceId: traceIdOf(metadata),
  };
}

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The trace id of a `traceparent` (read from the stored metadata, so an event that no longer parses still links); all zeros is no trace. */
function traceIdOf(metadata: object): string | null {
  const traceparent = (metadata as { traceparent?: unknown }).traceparent;
  if (typeof traceparent !== 'string') return null;
  const traceId = TRACEPARENT.exec(traceparent)?.[1];
  return traceId && !/^0+$/.test(traceId) ? traceId : null;
}

/** The distinct trace ids of a timeline, in the order they first appear (at most `max`). */
export function traceIdsOf(events: readonly TracedEvent[], max = 20): string[] {
  const ids = new Set<string>();
  for (const event of events) {
    if (ids.size >= max) break;
    if (event.traceId) ids.add(event.traceId);
  }
  return [...ids];
}

/** The match keys of an ExecutionAccepted (DESIGN.md §5), to find later calls that became new executions. */
export interface MatchKeys {
  readonly fingerprint: string;
  readonly actor: string;
  readonly intentScope: string;
}

export function laterExecutionOf(stored: StoredFields & { readonly streamId: string }, keys: MatchKeys): LaterExecution | null {
  if (stored.type !== 'ExecutionAccepted') return null;
  const data = stored.data as Record<string, unknown>;
  if (data['fingerprint'] !== keys.fingerprint || data['actor'] !== keys.actor || data['intentScope'] !== keys.intentScope) return null;
  return {
    executionId: String(data['executionId']),
    agentProcess: typeof data['agentProcess'] === 'string' ? data['agentProcess'] : null,
    clientIdempotencyKey: typeof data['clientIdempotencyKey'] === 'string' ? data['clientIdempotencyKey'] : null,
    acceptedAt: String(data['acceptedAt']),
    globalPosition: stored.globalPosition,
  };
}
