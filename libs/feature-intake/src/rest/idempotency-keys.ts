import { createHash, randomUUID } from 'node:crypto';
import { IdempotencyKeyBoundEvent } from '@onceport/contracts';
import { canonicalJson } from '@onceport/domain';
import { type EventStore, WrongExpectedVersionError } from '@onceport/event-store';

export interface KeyBinding {
  readonly executionId: string;
  readonly requestDigest: string;
}

/** A client `Idempotency-Key` per actor (IETF httpapi draft), bound once to one execution and one payload. */
export class IdempotencyKeys {
  constructor(private readonly store: EventStore) {}

  static digest(payload: { tool: string; arguments: unknown; intent_scope: string | null }): string {
    return `sha256:${createHash('sha256').update(canonicalJson(payload as never)).digest('hex')}`;
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
