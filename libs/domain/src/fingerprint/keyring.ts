import { FingerprintError } from './fingerprint-error';

/** Raw key bytes; a string is taken as its UTF-8 bytes (prefer random bytes from `parseKeyring`). */
export type KeyMaterial = Uint8Array | string;

/**
 * The server keys for fingerprints and sensitive-argument digests. The active key signs new
 * fingerprints; the others stay so that executions fingerprinted before a rotation still match.
 */
export interface Keyring {
  readonly activeKeyId: string;
  readonly keys: Readonly<Record<string, KeyMaterial>>;
}

/** The key id appears in every fingerprint (`hmac-sha256:<key-id>:<hex>`). */
export const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
/** HMAC-SHA256 keys shorter than the hash output weaken it; 32 bytes is the floor. */
export const MIN_KEY_BYTES = 32;

/**
 * Checks ids, lengths and the active key, reporting every problem (never a key's value).
 * Returns the same keyring, so it can wrap a literal: `validateKeyring({ activeKeyId, keys })`.
 */
export function validateKeyring(keyring: Keyring): Keyring {
  const problems: string[] = [];
  const ids = Object.keys(keyring.keys);
  if (ids.length === 0) problems.push('keys: got none; expected at least one key');
  for (const id of ids) {
    if (!KEY_ID_PATTERN.test(id)) problems.push(`key id ${JSON.stringify(id)}: expected 1–64 characters of A-Z a-z 0-9 . _ -`);
    const material = keyring.keys[id];
    const length = material === undefined ? 0 : toBytes(material).length;
    if (length < MIN_KEY_BYTES) problems.push(`key ${JSON.stringify(id)}: got ${length} bytes; expected at least ${MIN_KEY_BYTES} bytes`);
  }
  if (!Object.hasOwn(keyring.keys, keyring.activeKeyId)) {
    problems.push(`activeKeyId ${JSON.stringify(keyring.activeKeyId)}: expected one of the key ids (${ids.join(', ') || 'none'})`);
  }
  if (problems.length > 0) throw new FingerprintError('KEYRING_INVALID', problems);
  return keyring;
}

/** Active key first, then the others in the ring's order. */
export function keyIdsForMatching(keyring: Keyring): string[] {
  return [keyring.activeKeyId, ...Object.keys(keyring.keys).filter((id) => id !== keyring.activeKeyId)];
}

/** The bytes of one key, after validating the whole ring (cheap, and a bad ring must never sign). */
export function keyBytes(keyring: Keyring, keyId: string): Buffer {
  validateKeyring(keyring);
  const material = keyring.keys[keyId];
  if (material === undefined || !Object.hasOwn(keyring.keys, keyId)) {
    throw new FingerprintError('KEYRING_INVALID', [`key id ${JSON.stringify(keyId)}: not in the keyring`]);
  }
  return toBytes(material);
}

function toBytes(material: KeyMaterial): Buffer {
  return typeof material === 'string' ? Buffer.from(material, 'utf8') : Buffer.from(material);
}
