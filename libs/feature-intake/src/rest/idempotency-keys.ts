import { createHash } from 'node:crypto';
import { canonicalJson } from '@onceport/contracts';
import { type KeyBinding, type Keyring, requestDigestWithKey } from '@onceport/domain';
import { type CommandHandler, emptyStream, idempotencyKeyStream } from '@onceport/event-store';
import type { KeyToBind } from '../call-tool/call-tool.service';

export type { KeyBinding };

/** What a keyed REST request is compared by: the same key with another payload is refused (422). */
export interface KeyedPayload {
  readonly tool: string;
  readonly arguments: unknown;
  readonly intent_scope: string | null;
  /** Present only when sent, so payloads bound before runs existed keep their digests. */
  readonly run?: unknown;
  readonly repeat?: unknown;
}

const KEYED_DIGEST = /^hmac-sha256:([A-Za-z0-9._-]{1,64}):[0-9a-f]{64}$/;

/** A client `Idempotency-Key` per actor (IETF httpapi draft), bound once to one execution and one payload. */
export class IdempotencyKeys {
  constructor(
    private readonly commands: Pick<CommandHandler, 'load' | 'handle'>,
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
    return (await this.commands.load(idempotencyKeyStream(actor, key))).state;
  }

  /** What a call with this key binds it with (see `CallToolService.start`). */
  toBind(actor: string, key: string, requestDigest: string): KeyToBind {
    return {
      stream: idempotencyKeyStream(actor, key),
      requestDigest,
      bindAttached: async (executionId) => ((await this.bind(actor, key, { executionId, requestDigest })) ? null : this.lookup(actor, key)),
    };
  }

  /** Binds the key; false when another request bound it first (look it up again). */
  private async bind(actor: string, key: string, binding: KeyBinding): Promise<boolean> {
    const stream = idempotencyKeyStream(actor, key);
    const cause = { correlationId: binding.executionId, causationId: binding.executionId };
    // Just looked up and found unbound: the first try appends without reading it again.
    const bind = (_bound: unknown, now: Date) => ({ type: 'BindIdempotencyKey' as const, data: binding, metadata: { now } });
    const handled = await this.commands.handle(stream, bind, cause, { known: emptyStream(stream) });
    return handled.appended.length > 0;
  }
}
