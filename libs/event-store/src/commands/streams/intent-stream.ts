import { createHash } from 'node:crypto';
import { type IntentClaimed, IntentClaimedEvent, createEvent } from '@onceport/contracts';
import { type ClaimIntent, type IntentClaim, intentClaimDecider } from '@onceport/domain';
import type { Stream, StreamKind } from '../stream-kind';

const intentKind: StreamKind<ClaimIntent, readonly IntentClaim[], IntentClaimed> = {
  decider: intentClaimDecider,
  // Read on every call's hot path and written only by this kind: taken as stored, not re-validated.
  read: (stored) =>
    ({
      type: stored.type,
      schemaVersion: stored.schemaVersion,
      data: { executionId: String(stored.data['executionId']), claimedAt: String(stored.data['claimedAt']) },
      metadata: { ...stored.metadata, eventId: stored.eventId },
    }) as ReturnType<StreamKind<ClaimIntent, readonly IntentClaim[], IntentClaimed>['read']>,
  write: (event, metadata) => createEvent(IntentClaimedEvent, event.data, metadata),
  cached: false,
};

export type IntentStream = Stream<ClaimIntent, readonly IntentClaim[], IntentClaimed>;

/** One stream per (fingerprint, actor, intent scope): the lock-free serialisation point for identical calls. */
export function intentStreamId(fingerprint: string, actor: string, intentScope: string): string {
  return `intent-${createHash('sha256').update(`${fingerprint}\n${actor}\n${intentScope}`).digest('hex')}`;
}

/** The claims of one intent under one fingerprint (a rotating key ring gives an intent several); a claim is correlated by its execution. */
export function intentStream(fingerprint: string, actor: string, intentScope: string): IntentStream {
  return intentStreamWithId(intentStreamId(fingerprint, actor, intentScope));
}

/** An intent stream by the id it is stored under (a recorded one, an audit). */
export function intentStreamWithId(id: string): IntentStream {
  return { id, correlationId: id, kind: intentKind };
}
