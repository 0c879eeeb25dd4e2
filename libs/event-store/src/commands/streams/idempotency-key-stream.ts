import { createHash } from 'node:crypto';
import { type IdempotencyKeyBound, IdempotencyKeyBoundEvent, createEvent } from '@onceport/contracts';
import { type BindIdempotencyKey, type KeyBinding, idempotencyKeyDecider } from '@onceport/domain';
import type { Stream, StreamKind } from '../stream-kind';

const idempotencyKeyKind: StreamKind<BindIdempotencyKey, KeyBinding | null, IdempotencyKeyBound> = {
  decider: idempotencyKeyDecider,
  // Only the first event counts, and only its two fields are read: taken as stored, as before.
  read: (stored) =>
    ({
      type: stored.type,
      schemaVersion: stored.schemaVersion,
      data: {
        executionId: String(stored.data['executionId']),
        requestDigest: String(stored.data['requestDigest']),
        boundAt: String(stored.data['boundAt']),
      },
      metadata: { ...stored.metadata, eventId: stored.eventId },
    }) as ReturnType<StreamKind<BindIdempotencyKey, KeyBinding | null, IdempotencyKeyBound>['read']>,
  write: (event, metadata) => createEvent(IdempotencyKeyBoundEvent, event.data, metadata),
  cached: false,
};

export type IdempotencyKeyStream = Stream<BindIdempotencyKey, KeyBinding | null, IdempotencyKeyBound>;

/** A client `Idempotency-Key` of one actor (IETF httpapi draft): bound once, to one execution and one payload. */
export function idempotencyKeyStream(actor: string, key: string): IdempotencyKeyStream {
  const id = `idempotency-${createHash('sha256').update(`${actor}\n${key}`).digest('hex')}`;
  return { id, correlationId: id, kind: idempotencyKeyKind };
}
