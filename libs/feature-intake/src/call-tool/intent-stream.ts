import { createHash, randomUUID } from 'node:crypto';
import { IntentClaimedEvent } from '@onceport/contracts';
import type { EventStore, Queryable } from '@onceport/event-store';

/** One stream per (fingerprint, actor, intent scope): the lock-free serialisation point for identical calls. */
export function intentStreamId(fingerprint: string, actor: string, intentScope: string): string {
  return `intent-${createHash('sha256').update(`${fingerprint}\n${actor}\n${intentScope}`).digest('hex')}`;
}

export interface IntentClaim {
  readonly executionId: string;
  readonly claimedAt: string;
}

export interface IntentClaims {
  /** Executions claimed for this intent, oldest first. */
  readonly claims: readonly IntentClaim[];
  /** The version of the claiming stream (the active key's), to claim with. */
  readonly version: number;
}

/** Reads the claims of every stream the intent may live in (one per key of a rotating ring). */
export async function readIntentClaims(store: EventStore, streamIds: readonly string[]): Promise<IntentClaims> {
  const streams = await Promise.all(streamIds.map((id) => store.readStream(id)));
  const claims: IntentClaim[] = [];
  for (const events of streams) {
    for (const event of events) {
      if (event.type !== IntentClaimedEvent.type) continue;
      claims.push({ executionId: String(event.data['executionId']), claimedAt: String(event.data['claimedAt']) });
    }
  }
  return { claims, version: streams[0]?.length ?? 0 };
}

/**
 * Claims the intent for a new execution, inside the caller's transaction (with the acceptance).
 * Throws `WrongExpectedVersionError` when another call claimed first: roll back, read again, attach.
 */
export async function claimIntent(store: EventStore, streamId: string, version: number, executionId: string, now: Date, tx: Queryable): Promise<void> {
  const data = IntentClaimedEvent.data.parse({ executionId, claimedAt: now.toISOString() });
  const eventId = randomUUID();
  const metadata = { eventId, correlationId: executionId, causationId: executionId, occurredAt: now.toISOString() };
  await store.append(streamId, [{ eventId, type: IntentClaimedEvent.type, schemaVersion: IntentClaimedEvent.schemaVersion, data, metadata }], { expectedVersion: version, tx });
}
