import { randomBytes } from 'node:crypto';
import { FingerprintError } from './fingerprint-error';
import { keyIdsForMatching, validateKeyring } from './keyring';
import { parseKeyring } from './parse-keyring';

const K1 = randomBytes(32);
const K2 = randomBytes(48);

function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(FingerprintError);
    expect((error as FingerprintError).code).toBe('KEYRING_INVALID');
    return (error as FingerprintError).problems;
  }
  throw new Error('expected a KEYRING_INVALID error');
}

describe('parseKeyring', () => {
  it('reads "<id>:<base64>,…" with the first key active', () => {
    const keyring = parseKeyring(`k2:${K2.toString('base64')}, k1:${K1.toString('base64url')}`);
    expect(keyring.activeKeyId).toBe('k2');
    expect(keyIdsForMatching(keyring)).toEqual(['k2', 'k1']);
    expect(Buffer.from(keyring.keys['k1'] as Uint8Array).equals(K1)).toBe(true);
    expect(Buffer.from(keyring.keys['k2'] as Uint8Array).equals(K2)).toBe(true);
  });

  it('reports every bad entry, never the secret', () => {
    const short = randomBytes(16).toString('base64');
    const problems = problemsOf(() =>
      parseKeyring(`k 1:${K1.toString('base64')},k2,k3:${short},k3:${K2.toString('base64')},k4:not*base64`),
    );
    expect(problems).toEqual([
      expect.stringContaining('entry 1: key id "k 1"'),
      expect.stringContaining('entry 2: got no "<key-id>:" prefix'),
      expect.stringContaining('entry 3 (key id "k3"): secret is 16 bytes; expected at least 32'),
      expect.stringContaining('entry 5 (key id "k4"): secret is not base64'),
    ]);
    expect(problems.join('\n')).not.toContain(short);
  });

  it('reports a repeated key id and an empty spec', () => {
    expect(problemsOf(() => parseKeyring(`k1:${K1.toString('base64')},k1:${K2.toString('base64')}`))).toEqual([
      expect.stringContaining('key id "k1" appears twice'),
    ]);
    expect(problemsOf(() => parseKeyring('  '))[0]).toContain('got an empty keyring');
  });

  it('keeps a key id like __proto__ as an ordinary key', () => {
    const keyring = parseKeyring(`__proto__:${K1.toString('base64')}`);
    expect(Object.keys(keyring.keys)).toEqual(['__proto__']);
  });
});

describe('validateKeyring', () => {
  it('accepts buffers and long strings', () => {
    expect(() => validateKeyring({ activeKeyId: 'a', keys: { a: K1, b: 'x'.repeat(32) } })).not.toThrow();
  });

  it('refuses short keys, bad ids and an active id that is not in the ring', () => {
    const problems = problemsOf(() => validateKeyring({ activeKeyId: 'k9', keys: { 'k/1': K1, k2: 'short' } }));
    expect(problems).toEqual([
      expect.stringContaining('key id "k/1"'),
      'key "k2": got 5 bytes; expected at least 32 bytes',
      expect.stringContaining('activeKeyId "k9": expected one of the key ids (k/1, k2)'),
    ]);
    expect(problemsOf(() => validateKeyring({ activeKeyId: 'a', keys: {} }))[0]).toContain('expected at least one key');
  });
});
