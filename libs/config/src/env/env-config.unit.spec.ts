import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { CommonEnv, commonEnvShape, encryptionKeys } from './common-env';
import { EnvConfigError, loadEnvConfig } from './env-config';

const KEY = randomBytes(32).toString('base64');

function problemsOf(run: () => unknown): EnvConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(EnvConfigError);
    return error as EnvConfigError;
  }
  throw new Error('expected an EnvConfigError');
}

describe('loadEnvConfig with the common variables', () => {
  it('fills defaults and parses the keyring', () => {
    const env = loadEnvConfig(CommonEnv, { ONCEPORT_HMAC_KEYS: `k1:${KEY}`, UNRELATED: 'x' });
    expect(env).toMatchObject({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/onceport',
      NATS_URL: 'nats://127.0.0.1:4222',
      ONCEPORT_CONTRACTS_DIR: 'contracts',
      LOG_LEVEL: 'info',
      ONCEPORT_HMAC_KEYS: { activeKeyId: 'k1' },
    });
  });

  it('names every missing or bad variable and what is expected, never the value', () => {
    const error = problemsOf(() =>
      loadEnvConfig(CommonEnv, { DATABASE_URL: 'mysql://root:hunter2@db/x', NATS_URL: 'nats://a:4222,http://b', LOG_LEVEL: 'verbose' }),
    );
    expect(error.code).toBe('ENV_CONFIG_INVALID');
    expect(error.problems.map((p) => [p.variable, p.found])).toEqual([
      ['DATABASE_URL', 'invalid'],
      ['NATS_URL', 'invalid'],
      ['ONCEPORT_HMAC_KEYS', 'missing'],
      ['LOG_LEVEL', 'invalid'],
    ]);
    expect(error.message).toContain('ONCEPORT_HMAC_KEYS: missing; expected "<key-id>:<base64 secret ≥32 bytes>[,…]"');
    expect(error.message).toContain('DATABASE_URL: invalid value (not shown); expected a PostgreSQL URL');
    expect(error.message).toContain(
      'LOG_LEVEL: invalid value (not shown); expected one of fatal | error | warn | info | debug | trace | silent',
    );
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('verbose');
  });

  it('explains a bad keyring entry without showing the secret', () => {
    const short = randomBytes(8).toString('base64');
    const error = problemsOf(() => loadEnvConfig(CommonEnv, { ONCEPORT_HMAC_KEYS: `k2:${short},k1:${KEY}` }));
    expect(error.problems[0]?.message).toContain('entry 1 (key id "k2"): secret is 8 bytes; expected at least 32');
    expect(error.message).not.toContain(short);
    expect(error.message).not.toContain(KEY);
  });

  it('treats an empty variable as unset', () => {
    const env = loadEnvConfig(CommonEnv, { ONCEPORT_HMAC_KEYS: `k1:${KEY}`, LOG_LEVEL: '', DATABASE_URL: '  ' });
    expect(env.LOG_LEVEL).toBe('info');
    expect(env.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/onceport');
    expect(problemsOf(() => loadEnvConfig(CommonEnv, { ONCEPORT_HMAC_KEYS: '' })).problems[0]?.found).toBe('missing');
  });

  it('composes with app-specific variables', () => {
    const AppEnv = z.object({
      ...commonEnvShape,
      PORT: z.coerce.number({ error: 'a TCP port number' }).int().min(1).max(65535).default(3000),
    });
    expect(loadEnvConfig(AppEnv, { ONCEPORT_HMAC_KEYS: `k1:${KEY}`, PORT: '8080' }).PORT).toBe(8080);
    expect(problemsOf(() => loadEnvConfig(AppEnv, { ONCEPORT_HMAC_KEYS: `k1:${KEY}`, PORT: 'eighty' })).message).toContain(
      'PORT: invalid value (not shown); expected a TCP port number',
    );
  });
});

describe('ONCEPORT_ENCRYPTION_KEYS (encryptionKeys)', () => {
  const Schema = z.object({ ONCEPORT_ENCRYPTION_KEYS: encryptionKeys });

  it('reads a rotating ring of AES-256 keys, the first active', () => {
    const ring = loadEnvConfig(Schema, {
      ONCEPORT_ENCRYPTION_KEYS: `k2:${KEY},k1:${randomBytes(32).toString('base64')}`,
    }).ONCEPORT_ENCRYPTION_KEYS;
    expect(ring.activeKeyId).toBe('k2');
    expect(Object.keys(ring.keys)).toEqual(['k2', 'k1']);
  });

  it('names the variable when it is missing, and when a key is not exactly 32 bytes, never showing a key', () => {
    expect(problemsOf(() => loadEnvConfig(Schema, {})).message).toContain(
      'ONCEPORT_ENCRYPTION_KEYS: missing; expected "<key-id>:<base64 of exactly 32 random bytes>',
    );
    const long = randomBytes(64).toString('base64');
    const error = problemsOf(() => loadEnvConfig(Schema, { ONCEPORT_ENCRYPTION_KEYS: `k1:${long}` }));
    expect(error.problems).toEqual([expect.objectContaining({ variable: 'ONCEPORT_ENCRYPTION_KEYS', found: 'invalid' })]);
    expect(error.message).toContain('key id "k1": 64 bytes, AES-256 needs exactly 32');
    expect(error.message).not.toContain(long.slice(0, 12));
    expect(problemsOf(() => loadEnvConfig(Schema, { ONCEPORT_ENCRYPTION_KEYS: 'k1:not base64!' })).message).toContain(
      'secret is not base64',
    );
  });
});
