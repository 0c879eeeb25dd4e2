import type { JsonValue } from '@onceport/contracts';

/**
 * How a sensitive argument is stored in ExecutionAccepted: `{ "$sealed": "aes-256-gcm:<key-id>:<iv>:<ciphertext+tag>" }`
 * (base64url parts). A JSON object, so events keep their schema; the key id travels inside, so a
 * value sealed before a rotation still opens while its key stays in the ring.
 */
export interface SealedValue {
  readonly $sealed: string;
}

/** Which execution and argument a sealed value belongs to: authenticated with it, so it cannot be moved. */
export interface SealBinding {
  readonly executionId: string;
  readonly argument: string;
}

export type SealedArgumentErrorCode =
  /** Sealed under a key id the ring does not hold (rotated out too early, or another install's). */
  | 'unknown_key'
  /** Not the `aes-256-gcm:<key-id>:<iv>:<ciphertext>` shape. */
  | 'malformed'
  /** The key is there but the value does not open: altered, or sealed for another execution or argument. */
  | 'refused';

/** A sealed value that cannot be opened. The message names the argument and the key id, never a value. */
export class SealedArgumentError extends Error {
  constructor(
    readonly code: SealedArgumentErrorCode,
    readonly binding: SealBinding,
    detail: string,
  ) {
    super(`sensitive argument "${binding.argument}" of ${binding.executionId}: ${detail}`);
    this.name = 'SealedArgumentError';
  }
}

/**
 * The port intake seals with and the dispatcher and reconciler open with (AES-256-GCM under
 * `ONCEPORT_ENCRYPTION_KEYS` in production: `AesGcmArgumentSealer` in the runtime). The domain only
 * decides which values go through it.
 */
export interface ArgumentSealer {
  seal(value: JsonValue, binding: SealBinding): SealedValue;
  /** Throws SealedArgumentError when the value does not open. */
  open(sealed: SealedValue, binding: SealBinding): JsonValue;
}

export function isSealedValue(value: unknown): value is SealedValue {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === '$sealed' && typeof (value as { $sealed: unknown }).$sealed === 'string';
}
