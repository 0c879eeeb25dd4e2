import { FingerprintError } from './fingerprint-error';
import { KEY_ID_PATTERN, MIN_KEY_BYTES, validateKeyring, type Keyring } from './keyring';

/** Standard or URL-safe base64, padding optional. */
const BASE64 = /^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_-]+)={0,2}$/;

export const KEYRING_SPEC_EXPECTED = `"<key-id>:<base64 secret ≥${MIN_KEY_BYTES} bytes>[,…]" (first = active), e.g. k2:…,k1:…`;

/**
 * Reads a keyring from configuration, e.g. `ONCEPORT_HMAC_KEYS=k2:<base64>,k1:<base64>`. The
 * first key is active; later ones are kept for matching fingerprints made before a rotation.
 * Errors name the entry and key id, never the secret.
 *
 * @example parseKeyring(process.env.ONCEPORT_HMAC_KEYS ?? '')
 */
export function parseKeyring(spec: string): Keyring {
  const problems: string[] = [];
  // A Map, then fromEntries: a key id such as `__proto__` must stay an ordinary own property.
  const keys = new Map<string, Buffer>();
  const entries = spec.split(',').map((e) => e.trim());
  if (spec.trim() === '') throw new FingerprintError('KEYRING_INVALID', [`got an empty keyring; expected ${KEYRING_SPEC_EXPECTED}`]);
  entries.forEach((entry, index) => {
    const label = `entry ${index + 1}`;
    const colon = entry.indexOf(':');
    if (colon <= 0) {
      problems.push(`${label}: got no "<key-id>:" prefix; expected ${KEYRING_SPEC_EXPECTED}`);
      return;
    }
    const id = entry.slice(0, colon);
    const secret = entry.slice(colon + 1).trim();
    if (!KEY_ID_PATTERN.test(id)) problems.push(`${label}: key id ${JSON.stringify(id)}; expected 1–64 characters of A-Z a-z 0-9 . _ -`);
    else if (keys.has(id)) problems.push(`${label}: key id ${JSON.stringify(id)} appears twice; expected each key id once`);
    if (!BASE64.test(secret)) {
      problems.push(
        `${label} (key id ${JSON.stringify(id)}): secret is not base64; expected base64 of at least ${MIN_KEY_BYTES} random bytes`,
      );
      return;
    }
    const bytes = Buffer.from(secret, secret.includes('-') || secret.includes('_') ? 'base64url' : 'base64');
    if (bytes.length < MIN_KEY_BYTES) {
      problems.push(
        `${label} (key id ${JSON.stringify(id)}): secret is ${bytes.length} bytes; expected at least ${MIN_KEY_BYTES} (e.g. openssl rand -base64 32)`,
      );
      return;
    }
    if (!keys.has(id)) keys.set(id, bytes);
  });
  if (problems.length > 0) throw new FingerprintError('KEYRING_INVALID', problems);
  const activeKeyId = entries[0]?.slice(0, entries[0].indexOf(':')) ?? '';
  return validateKeyring({ activeKeyId, keys: Object.fromEntries(keys) });
}
