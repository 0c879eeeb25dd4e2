import { randomBytes } from 'node:crypto';
import { type Keyring, type SealedValue, SealedArgumentError, parseKeyring } from '@onceport/domain';
import { AesGcmArgumentSealer } from './aes-gcm-argument-sealer';

const key = (): string => randomBytes(32).toString('base64');
const ring = (spec: string): Keyring => parseKeyring(spec);
const binding = { executionId: 'exe_01J4K8J7DX7V0000000000000A', argument: 'card_token' };

function refusal(run: () => unknown): SealedArgumentError {
  try {
    run();
  } catch (error) {
    if (error instanceof SealedArgumentError) return error;
    throw error;
  }
  throw new Error('expected the sealed value to be refused');
}

describe('AesGcmArgumentSealer', () => {
  const k1 = `k1:${key()}`;
  const sealer = new AesGcmArgumentSealer(ring(k1));

  it('seals a value so that neither it nor any part of it is readable, and opens it again', () => {
    const sealed = sealer.seal('tok_4242424242424242', binding);
    expect(sealed.$sealed).toMatch(/^aes-256-gcm:k1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
    expect(JSON.stringify(sealed)).not.toContain('4242');
    expect(sealer.open(sealed, binding)).toBe('tok_4242424242424242');
    // A fresh IV every time: the same value never seals to the same text (no equality oracle).
    expect(sealer.seal('tok_4242424242424242', binding).$sealed).not.toBe(sealed.$sealed);
  });

  it('keeps JSON values whole: objects, numbers, unicode', () => {
    const value = { pan: '4242', exp: [12, 2031], name: 'Zoë 🚀' };
    expect(sealer.open(sealer.seal(value, binding), binding)).toEqual(value);
  });

  it('opens values sealed before a rotation while the old key stays in the ring, and seals with the new one', () => {
    const before = sealer.seal('tok_old', binding);
    const rotated = new AesGcmArgumentSealer(ring(`k2:${key()},${k1}`));
    expect(rotated.open(before, binding)).toBe('tok_old');
    expect(rotated.seal('tok_new', binding).$sealed.startsWith('aes-256-gcm:k2:')).toBe(true);
  });

  it('refuses a value sealed under a key id the ring does not hold, naming the key and the variable', () => {
    const other = new AesGcmArgumentSealer(ring(`k9:${key()}`)).seal('tok', binding);
    const error = refusal(() => sealer.open(other, binding));
    expect(error.code).toBe('unknown_key');
    expect(error.message).toBe(
      `sensitive argument "card_token" of ${binding.executionId}: sealed under key "k9", which ONCEPORT_ENCRYPTION_KEYS does not hold (it holds k1); add that key back to open it`,
    );
  });

  it('refuses a value whose key id was swapped for one the ring holds (another key cannot open it)', () => {
    const ringOf2 = `k2:${key()},${k1}`;
    const sealed = new AesGcmArgumentSealer(ring(ringOf2)).seal('tok', binding);
    const relabelled: SealedValue = { $sealed: sealed.$sealed.replace(':k2:', ':k1:') };
    expect(refusal(() => new AesGcmArgumentSealer(ring(ringOf2)).open(relabelled, binding)).code).toBe('refused');
  });

  it('refuses a tampered ciphertext, tag or IV', () => {
    const sealed = sealer.seal('tok_4242424242424242', binding).$sealed;
    const [alg, kid, iv = '', body = ''] = sealed.split(':');
    const flip = (text: string, at: number): string => {
      const bytes = Buffer.from(text, 'base64url');
      bytes[at] = (bytes[at] ?? 0) ^ 0x01;
      return bytes.toString('base64url');
    };
    for (const tampered of [
      [alg, kid, iv, flip(body, 0)],
      [alg, kid, iv, flip(body, Buffer.from(body, 'base64url').length - 1)],
      [alg, kid, flip(iv, 3), body],
    ]) {
      const error = refusal(() => sealer.open({ $sealed: tampered.join(':') }, binding));
      expect(error.code).toBe('refused');
      expect(error.message).toContain('it was altered, or sealed for another execution or argument');
      expect(error.message).not.toContain('4242');
    }
  });

  it('refuses a value moved to another execution or another argument', () => {
    const sealed = sealer.seal('tok', binding);
    expect(refusal(() => sealer.open(sealed, { ...binding, executionId: 'exe_01J4K8J7DX7V0000000000000B' })).code).toBe('refused');
    expect(refusal(() => sealer.open(sealed, { ...binding, argument: 'description' })).code).toBe('refused');
  });

  it('refuses what is not a sealed value at all', () => {
    for (const text of ['tok', 'aes-256-gcm:k1:short:x', `aes-128-gcm:k1:${'A'.repeat(16)}:${'A'.repeat(30)}`]) {
      expect(refusal(() => sealer.open({ $sealed: text }, binding)).code).toBe('malformed');
    }
  });

  it('refuses a ring whose keys are not AES-256 keys', () => {
    expect(() => new AesGcmArgumentSealer(ring(`k1:${randomBytes(48).toString('base64')}`))).toThrow(
      'encryption key "k1": got 48 bytes; AES-256 needs exactly 32',
    );
  });
});
