import { FingerprintError, KEYRING_SPEC_EXPECTED, parseKeyring, type Keyring } from '@onceport/domain';
import { z } from 'zod';

// Zod fragments for the variables every Onceport app shares. Each message is the "expected"
// half of an EnvConfigError line. Compose them: z.object({ ...commonEnvShape, PORT: … }).

const urlWithScheme = (text: string, schemes: readonly string[]): boolean => {
  try {
    return schemes.includes(new URL(text).protocol);
  } catch {
    return false;
  }
};

const DATABASE_URL_EXPECTED = 'a PostgreSQL URL such as postgres://user:password@host:5432/onceport';
/** A PostgreSQL URL with no default: for an optional one, a default would silently stand in for it. */
export const postgresUrl = z
  .string({ error: DATABASE_URL_EXPECTED })
  .refine((v) => urlWithScheme(v, ['postgres:', 'postgresql:']), { error: DATABASE_URL_EXPECTED });
export const databaseUrl = postgresUrl.default('postgres://postgres@127.0.0.1:5432/onceport');

const NATS_URL_EXPECTED = 'one or more NATS server URLs, comma-separated, such as nats://127.0.0.1:4222 (nats:, tls:, ws: or wss:)';
export const natsUrl = z
  .string({ error: NATS_URL_EXPECTED })
  .refine((v) => v.split(',').every((s) => urlWithScheme(s.trim(), ['nats:', 'tls:', 'ws:', 'wss:'])), { error: NATS_URL_EXPECTED })
  .default('nats://127.0.0.1:4222');

/** Relative paths resolve against the working directory, like every other path an operator types. */
export const contractsDir = z.string({ error: 'a directory of tool contract YAML files' }).default('contracts');

/**
 * Required, never defaulted: a built-in key would be the same on every install, and fingerprints
 * under a known key are a guessing oracle for the arguments they cover.
 */
export const hmacKeys = z.string({ error: KEYRING_SPEC_EXPECTED }).transform((spec, ctx): Keyring => {
  try {
    return parseKeyring(spec);
  } catch (error) {
    if (!(error instanceof FingerprintError)) throw error;
    ctx.addIssue({ code: 'custom', message: `${KEYRING_SPEC_EXPECTED} (${error.problems.join('; ')})` });
    return z.NEVER;
  }
});

export const ENCRYPTION_KEYS_EXPECTED =
  '"<key-id>:<base64 of exactly 32 random bytes>[,…]" (first = active; e.g. k1:$(openssl rand -base64 32))';

/**
 * The AES-256-GCM key ring that seals sensitive arguments (`ONCEPORT_ENCRYPTION_KEYS`). Required,
 * never defaulted, for the same reason as the HMAC keys: a built-in key protects nothing. Rotates
 * like them: the first key seals, every listed key opens.
 */
export const encryptionKeys = z.string({ error: ENCRYPTION_KEYS_EXPECTED }).transform((spec, ctx): Keyring => {
  let keyring: Keyring;
  try {
    keyring = parseKeyring(spec);
  } catch (error) {
    if (!(error instanceof FingerprintError)) throw error;
    ctx.addIssue({ code: 'custom', message: `${ENCRYPTION_KEYS_EXPECTED} (${error.problems.join('; ')})` });
    return z.NEVER;
  }
  const wrong = Object.entries(keyring.keys).filter(([, material]) => material.length !== 32);
  if (wrong.length > 0) {
    const problems = wrong.map(([id, material]) => `key id ${JSON.stringify(id)}: ${material.length} bytes, AES-256 needs exactly 32`);
    ctx.addIssue({ code: 'custom', message: `${ENCRYPTION_KEYS_EXPECTED} (${problems.join('; ')})` });
    return z.NEVER;
  }
  return keyring;
});

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const logLevel = z.enum(LOG_LEVELS).default('info');

/** Spread into an app's schema: `z.object({ ...commonEnvShape, PORT: port })`. */
export const commonEnvShape = {
  DATABASE_URL: databaseUrl,
  NATS_URL: natsUrl,
  ONCEPORT_CONTRACTS_DIR: contractsDir,
  ONCEPORT_HMAC_KEYS: hmacKeys,
  LOG_LEVEL: logLevel,
};

export const CommonEnv = z.object(commonEnvShape);
export type CommonEnv = z.output<typeof CommonEnv>;
