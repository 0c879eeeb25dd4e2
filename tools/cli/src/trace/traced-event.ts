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
  };
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
