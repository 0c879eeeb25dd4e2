import { randomBytes } from 'node:crypto';
import { parseKeyring } from '@onceport/domain';
import { AesGcmArgumentSealer } from './aes-gcm-argument-sealer';

/** A fresh `ONCEPORT_ENCRYPTION_KEYS` value (one random AES-256 key), as an operator would set it. */
export function testEncryptionKeys(keyId = 't1'): string {
  return `${keyId}:${randomBytes(32).toString('base64')}`;
}

/** A sealer under a fresh key ring, for tests that wire intake, the dispatcher or the reconciler by hand. */
export function testArgumentSealer(spec: string = testEncryptionKeys()): AesGcmArgumentSealer {
  return new AesGcmArgumentSealer(parseKeyring(spec));
}
