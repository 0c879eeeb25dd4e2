import { z } from 'zod';
import { type Event } from '../events/event';
import { defineEvent } from '../events/event-definition';
import { ExecutionId, IsoTimestamp } from '../primitives';

/**
 * Intake claimed an intent for a new execution. The intent stream (one per fingerprint, actor and
 * scope) is appended with an expected version, so of many identical calls arriving together exactly
 * one creates an execution and the others find its claim and attach to it.
 */
export const IntentClaimedData = z.object({
  executionId: ExecutionId,
  claimedAt: IsoTimestamp,
});
export type IntentClaimedData = z.infer<typeof IntentClaimedData>;
export type IntentClaimed = Event<'IntentClaimed', IntentClaimedData>;
export const IntentClaimedEvent = defineEvent('IntentClaimed', 1, IntentClaimedData);

/**
 * A client `Idempotency-Key` (IETF httpapi draft) was bound to an execution, with a digest of the
 * request it came with: a reuse with another payload is refused, a reuse in flight gets 409.
 */
export const IdempotencyKeyBoundData = z.object({
  executionId: ExecutionId,
  // Keyed since #12 (`hmac-sha256:<key-id>:<hex>`); plain `sha256:<hex>` digests bound before stay readable.
  requestDigest: z.string().regex(/^(sha256|hmac-sha256:[A-Za-z0-9._-]{1,64}):[0-9a-f]{64}$/),
  boundAt: IsoTimestamp,
});
export type IdempotencyKeyBoundData = z.infer<typeof IdempotencyKeyBoundData>;
export type IdempotencyKeyBound = Event<'IdempotencyKeyBound', IdempotencyKeyBoundData>;
export const IdempotencyKeyBoundEvent = defineEvent('IdempotencyKeyBound', 1, IdempotencyKeyBoundData);
