import { createHash, randomBytes } from 'node:crypto';
import { canonicalJson } from '@onceport/contracts';
import { parseKeyring } from '@onceport/domain';
import type { CommandHandler } from '@onceport/event-store';
import { IdempotencyKeys } from './idempotency-keys';

const payload = { tool: 'charge_payment', arguments: { card_token: '4242', amount: 10 }, intent_scope: null };
const k1 = `k1:${randomBytes(32).toString('base64')}`;
const k2 = `k2:${randomBytes(32).toString('base64')}`;
// Only digest and sameRequest are under test: neither touches the store.
const keysWith = (spec: string): IdempotencyKeys => new IdempotencyKeys({} as CommandHandler, parseKeyring(spec));

describe('IdempotencyKeys request digests', () => {
  it('are keyed: no plain hash of the payload (which may hold a sensitive value) is stored', () => {
    const digest = keysWith(k1).digest(payload);
    expect(digest).toMatch(/^hmac-sha256:k1:[0-9a-f]{64}$/);
    const plain = createHash('sha256')
      .update(canonicalJson(payload as never))
      .digest('hex');
    expect(digest).not.toContain(plain);
    expect(keysWith(`k1:${randomBytes(32).toString('base64')}`).digest(payload)).not.toBe(digest);
  });

  it('tell the same payload from another one, across a key rotation while the old key stays', () => {
    const bound = keysWith(k1).digest(payload);
    const rotated = keysWith(`${k2},${k1}`);
    expect(rotated.sameRequest(bound, payload)).toBe(true);
    expect(rotated.sameRequest(bound, { ...payload, arguments: { ...payload.arguments, amount: 11 } })).toBe(false);
    expect(keysWith(k2).sameRequest(bound, payload)).toBe(false); // the key it names is gone
  });

  it('still compare bindings made before digests were keyed (plain sha256)', () => {
    const legacy = `sha256:${createHash('sha256')
      .update(canonicalJson(payload as never))
      .digest('hex')}`;
    expect(keysWith(k1).sameRequest(legacy, payload)).toBe(true);
    expect(keysWith(k1).sameRequest(legacy, { ...payload, tool: 'other' })).toBe(false);
    expect(keysWith(k1).sameRequest('nonsense', payload)).toBe(false);
  });
});
