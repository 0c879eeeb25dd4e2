export { buildCanonicalRecord, recordTarget, type CanonicalRecordInput, type HmacForSensitive } from './canonical-record';
export {
  fingerprint,
  fingerprintWithKey,
  fingerprintsForMatching,
  fingerprintIntent,
  requestDigestWithKey,
  sensitiveHmacWith,
  type IntentFingerprints,
} from './fingerprint';
export { FingerprintError, type FingerprintErrorCode, type FingerprintArgumentIssue } from './fingerprint-error';
export { validateKeyring, keyBytes, keyIdsForMatching, KEY_ID_PATTERN, MIN_KEY_BYTES, type Keyring, type KeyMaterial } from './keyring';
export { parseKeyring, KEYRING_SPEC_EXPECTED } from './parse-keyring';
