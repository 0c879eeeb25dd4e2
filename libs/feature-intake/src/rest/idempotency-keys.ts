import { createHash, randomUUID } from 'node:crypto';
import { IdempotencyKeyBoundEvent, canonicalJson } from '@onceport/contracts';
import { type Keyring, requestDigestWithKey } from '@onceport/domain';
import { type EventStore, WrongExpectedVersionError } from '@onceport/event-store';

export interface KeyBinding {
  readonly executionId: string;
  readonly requestDigest: string;
}

/** What a keyed REST request is compared by: the same key with another payload is refused (422). */
export interface KeyedPayload {
  readonly tool: string;
  readonly arguments: unknown;
  readonly intent_scope: string | null;
}

const KEYED_DIGEST = /^hmac-sha256:([A-Za-z0-9._-]{1,64}):[0-9a-f]{64}$/;

/** A client `Idempotency-Key` per actor (IETF httpapi draft), bound once to one execution and one payload. */
export class IdempotencyKeys {
  constructor(
    private readonly store: EventStore,
    private readonly keyring: Keyring,
  ) {}

  /** The payload's digest under the active HMAC key (see `requestDigestWithKey`). */
  digest(payload: KeyedPayload): string {
    return requestDigestWithKey(canonicalJson(payload as never), this.keyring);
  }

  /**
   * Whether a payload is the one a key was bound with: a keyed digest is recomputed with the key it
   * names (so a rotation keeps old bindings comparable while that key stays in the ring); a plain
   * SHA-256 one was bound before digests were keyed.
   */
  sameRequest(boundDigest: string, payload: KeyedPayload): boolean {
    const canonical = canonicalJson(payload as never);
    if (boundDigest.startsWith('sha256:')) return boundDigest === `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
    const keyId = KEYED_DIGEST.exec(boundDigest)?.[1];
    if (keyId === undefined || !Object.hasOwn(this.keyring.keys, keyId)) return false;
    return boundDigest === requestDigestWithKey(canonical, this.keyring, keyId);
  }

  async lookup(actor: string, key: string): Promise<KeyBinding | null> {
    const [bound] = await this.store.readStream(streamOf(actor, key));
    if (!bound) return null;
    return { executionId: String(bound.data['executionId']), requestDigest: String(bound.data['requestDigest']) };
  }

  /** Binds the key; false when another request bound it first (look it up again). */
  async bind(actor: string, key: string, binding: KeyBinding): Promise<boolean> {
    const now = new Date().toISOString();
    const data = IdempotencyKeyBoundEvent.data.parse({ ...binding, boundAt: now });
    const eventId = randomUUID();
    try {
      await this.store.append(
        streamOf(actor, key),
        [{ eventId, type: IdempotencyKeyBoundEvent.type, schemaVersion: IdempotencyKeyBoundEvent.schemaVersion, data, metadata: { eventId, correlationId: binding.executionId, causationId: binding.executionId, occurredAt: now } }],
        { expectedVersion: 0 },
      );
      return true;
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) return false;
      throw error;
    }
  }
}

function streamOf(actor: string, key: string): string {
  return `idempotency-${createHash('sha256').update(`${actor}\n${key}`).digest('hex')}`;
}
