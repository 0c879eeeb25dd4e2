import { createHmac, randomBytes } from 'node:crypto';
import { Fingerprint, canonicalJson } from '@onceport/contracts';
import { demoContract } from '../../test/demo-contracts';
import { buildCanonicalRecord } from './canonical-record';
import { fingerprint, fingerprintIntent, fingerprintsForMatching, fingerprintWithKey, sensitiveHmacWith } from './fingerprint';
import { FingerprintError } from './fingerprint-error';
import type { Keyring } from './keyring';

const K1 = randomBytes(32);
const K2 = randomBytes(32);
const before: Keyring = { activeKeyId: 'k1', keys: { k1: K1 } };
const rotated: Keyring = { activeKeyId: 'k2', keys: { k2: K2, k1: K1 } };
const call = {
  contract: demoContract('charge_payment'),
  actor: 'agent:billing',
  intentScope: 'run_7',
  arguments: { customer_id: 'cus_A1', amount_cents: 500, card_token: 'tok_secret_value' },
};

describe('fingerprint', () => {
  const record = buildCanonicalRecord({
    ...call,
    contract: demoContract('get_build_status'),
    arguments: { build_id: 7 },
    hmacForSensitive: sensitiveHmacWith(before),
  });

  it('is hmac-sha256:<key-id>:<hex> over the canonical JSON, domain-separated', () => {
    const value = fingerprint(record, before);
    expect(Fingerprint.safeParse(value).success).toBe(true);
    const expected = createHmac('sha256', K1).update('onceport/intent-fingerprint/v1\n').update(canonicalJson(record)).digest('hex');
    expect(value).toBe(`hmac-sha256:k1:${expected}`);
  });

  it('uses the active key, and different keys give different fingerprints', () => {
    expect(fingerprint(record, rotated).startsWith('hmac-sha256:k2:')).toBe(true);
    expect(fingerprint(record, rotated).slice(-64)).not.toBe(fingerprint(record, before).slice(-64));
  });

  it('lists one fingerprint per key, active first, for matching across a rotation', () => {
    expect(fingerprintsForMatching(record, rotated)).toEqual([fingerprintWithKey(record, rotated, 'k2'), fingerprint(record, before)]);
  });

  it('matches a sensitive-argument call fingerprinted before the rotation', () => {
    const old = fingerprintIntent(call, before);
    const now = fingerprintIntent(call, rotated);
    expect(now.fingerprint).not.toBe(old.fingerprint);
    expect(now.matching).toEqual([now.fingerprint, old.fingerprint]);
    expect(now.record.arguments['card_token']).toEqual({ $hmac: expect.stringMatching(/^hmac-sha256:k2:[0-9a-f]{64}$/) });
  });

  it('refuses a malformed record or keyring', () => {
    expect(() => fingerprint({ ...record, actor: '' }, before)).toThrow(FingerprintError);
    expect(() => fingerprint(record, { activeKeyId: 'k1', keys: { k1: 'too-short' } })).toThrow('key "k1": got 9 bytes');
    expect(() => sensitiveHmacWith(before, 'k9')).toThrow('key id "k9": not in the keyring');
  });
});
