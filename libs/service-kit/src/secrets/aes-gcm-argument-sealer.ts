import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { JsonValue } from '@onceport/contracts';
import { type ArgumentSealer, type Keyring, type SealBinding, type SealedValue, SealedArgumentError, keyBytes } from '@onceport/domain';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Domain separation: this key ring seals nothing else, but the label makes that checkable. */
const CONTEXT = 'onceport/sealed-argument/v1';
const SEALED_SHAPE = /^aes-256-gcm:([A-Za-z0-9._-]{1,64}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]{22,})$/;

/**
 * Seals sensitive arguments with AES-256-GCM under `ONCEPORT_ENCRYPTION_KEYS`: the active key seals,
 * every key in the ring opens (rotation: put the new key first, keep the old ones until no open
 * execution needs them). The associated data binds each value to its execution and argument name,
 * so a sealed value copied into another event or argument does not open.
 *
 * @example const sealer = new AesGcmArgumentSealer(env.ONCEPORT_ENCRYPTION_KEYS);
 */
export class AesGcmArgumentSealer implements ArgumentSealer {
  constructor(private readonly keyring: Keyring) {
    for (const id of Object.keys(keyring.keys)) {
      const length = keyBytes(keyring, id).length;
      if (length !== 32) throw new Error(`encryption key "${id}": got ${length} bytes; AES-256 needs exactly 32`);
    }
  }

  seal(value: JsonValue, binding: SealBinding): SealedValue {
    const keyId = this.keyring.activeKeyId;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, keyBytes(this.keyring, keyId), iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData(keyId, binding));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return { $sealed: `${ALGORITHM}:${keyId}:${iv.toString('base64url')}:${ciphertext.toString('base64url')}` };
  }

  open(sealed: SealedValue, binding: SealBinding): JsonValue {
    const parts = SEALED_SHAPE.exec(sealed.$sealed);
    if (!parts) throw new SealedArgumentError('malformed', binding, 'the stored value is not an aes-256-gcm sealed value');
    const [, keyId = '', iv = '', body = ''] = parts;
    if (!Object.hasOwn(this.keyring.keys, keyId)) {
      const held = Object.keys(this.keyring.keys).join(', ');
      throw new SealedArgumentError(
        'unknown_key',
        binding,
        `sealed under key "${keyId}", which ONCEPORT_ENCRYPTION_KEYS does not hold (it holds ${held}); add that key back to open it`,
      );
    }
    const bytes = Buffer.from(body, 'base64url');
    try {
      const decipher = createDecipheriv(ALGORITHM, keyBytes(this.keyring, keyId), Buffer.from(iv, 'base64url'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(associatedData(keyId, binding));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as JsonValue;
    } catch {
      // GCM says only "unable to authenticate" (its error may come from another realm, so no
      // instanceof): altered, or bound to another execution or argument. Nothing else runs here.
      throw new SealedArgumentError(
        'refused',
        binding,
        `the sealed value under key "${keyId}" does not open: it was altered, or sealed for another execution or argument`,
      );
    }
  }
}

function associatedData(keyId: string, binding: SealBinding): Buffer {
  return Buffer.from([CONTEXT, keyId, binding.executionId, binding.argument].join('\n'), 'utf8');
}
