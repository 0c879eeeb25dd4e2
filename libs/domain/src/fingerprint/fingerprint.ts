import { createHmac } from 'node:crypto';
import { CanonicalOperationRecord, type Fingerprint, canonicalJson } from '@onceport/contracts';
import { buildCanonicalRecord, type CanonicalRecordInput, type HmacForSensitive } from './canonical-record';
import { FingerprintError } from './fingerprint-error';
import { keyBytes, keyIdsForMatching, type Keyring } from './keyring';

// Domain separation: the same key signs fingerprints and sensitive-argument digests, and one
// must never be mistakable for (or replayable as) the other.
const FINGERPRINT_CONTEXT = 'onceport/intent-fingerprint/v1\n';
const SENSITIVE_CONTEXT = 'onceport/sensitive-argument/v1\n';
const REQUEST_DIGEST_CONTEXT = 'onceport/idempotency-request/v1\n';

function hmacHex(keyring: Keyring, keyId: string, context: string, message: string): string {
  return createHmac('sha256', keyBytes(keyring, keyId)).update(context).update(message, 'utf8').digest('hex');
}

/**
 * `hmac-sha256:<key-id>:<hex>` over the record's canonical JSON, with the given key.
 * The record is checked first: a malformed record must not get a valid-looking fingerprint.
 */
export function fingerprintWithKey(record: CanonicalOperationRecord, keyring: Keyring, keyId: string): Fingerprint {
  const checked = CanonicalOperationRecord.safeParse(record);
  if (!checked.success) {
    throw new FingerprintError(
      'INVALID_RECORD_INPUT',
      checked.error.issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`),
    );
  }
  return `hmac-sha256:${keyId}:${hmacHex(keyring, keyId, FINGERPRINT_CONTEXT, canonicalJson(record))}`;
}

/**
 * The intent fingerprint of a record, with the keyring's active key (DESIGN.md §1–2).
 *
 * @example fingerprint(record, parseKeyring(env.ONCEPORT_HMAC_KEYS)) // 'hmac-sha256:k2:3f…'
 */
export function fingerprint(record: CanonicalOperationRecord, keyring: Keyring): Fingerprint {
  return fingerprintWithKey(record, keyring, keyring.activeKeyId);
}

/**
 * One fingerprint per key, active first, so executions fingerprinted before a key rotation still
 * match. Exact for records without sensitive arguments; a record holding `$hmac` digests was
 * built with one key, so for such tools use `fingerprintIntent`, which rebuilds it per key.
 */
export function fingerprintsForMatching(record: CanonicalOperationRecord, keyring: Keyring): Fingerprint[] {
  return keyIdsForMatching(keyring).map((keyId) => fingerprintWithKey(record, keyring, keyId));
}

/** Digests sensitive argument values as `hmac-sha256:<key-id>:<hex>` (active key unless given). */
export function sensitiveHmacWith(keyring: Keyring, keyId: string = keyring.activeKeyId): HmacForSensitive {
  keyBytes(keyring, keyId);
  return (canonicalValue) => `hmac-sha256:${keyId}:${hmacHex(keyring, keyId, SENSITIVE_CONTEXT, canonicalValue)}`;
}

/**
 * A keyed digest (`hmac-sha256:<key-id>:<hex>`) of a request payload's canonical JSON, for telling a
 * reused `Idempotency-Key` with another payload apart. Keyed, because the payload may hold a
 * sensitive argument: a plain hash in the store would let its reader guess a low-entropy secret.
 */
export function requestDigestWithKey(canonicalPayload: string, keyring: Keyring, keyId: string = keyring.activeKeyId): string {
  return `hmac-sha256:${keyId}:${hmacHex(keyring, keyId, REQUEST_DIGEST_CONTEXT, canonicalPayload)}`;
}

export interface IntentFingerprints {
  /** The record to store and show, built with the active key. */
  readonly record: CanonicalOperationRecord;
  /** With the active key: what a new execution is stored under. */
  readonly fingerprint: Fingerprint;
  /** One per key, active first, each over the record rebuilt with that key: what to look up. */
  readonly matching: readonly Fingerprint[];
}

/**
 * Record + fingerprint + rotation-safe lookup fingerprints for one call, in one step.
 *
 * @example const { record, fingerprint, matching } = fingerprintIntent({ contract, actor, intentScope, arguments: args }, keyring);
 */
export function fingerprintIntent(input: Omit<CanonicalRecordInput, 'hmacForSensitive'>, keyring: Keyring): IntentFingerprints {
  const matching = keyIdsForMatching(keyring).map((keyId) => {
    const record = buildCanonicalRecord({ ...input, hmacForSensitive: sensitiveHmacWith(keyring, keyId) });
    return { record, fingerprint: fingerprintWithKey(record, keyring, keyId) };
  });
  const active = matching[0];
  if (!active) throw new FingerprintError('KEYRING_INVALID', ['keys: got none; expected at least one key']);
  return { record: active.record, fingerprint: active.fingerprint, matching: matching.map((m) => m.fingerprint) };
}
