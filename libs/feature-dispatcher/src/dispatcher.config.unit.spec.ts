import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { EnvConfigError, loadEnvConfig } from '@onceport/config';
import { z } from 'zod';
import { dispatcherConfigFrom, dispatcherEnvShape } from './dispatcher.config';

const schema = z.object(dispatcherEnvShape);
/** Required by the dispatcher (it opens sealed sensitive arguments); not what these cases are about. */
const keys = { ONCEPORT_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}` };

describe('dispatcher environment', () => {
  it('has defaults for everything', () => {
    expect(dispatcherConfigFrom(loadEnvConfig(schema, keys))).toEqual({
      dispatcherId: `${hostname()}-${process.pid}`,
      concurrency: 32,
      leaseMs: 60_000,
      retries: 3,
      retryBackoffMs: 500,
    });
  });

  it('reads the variables', () => {
    const env = loadEnvConfig(schema, {
      ...keys,
      ONCEPORT_DISPATCH_CONCURRENCY: '4',
      ONCEPORT_DISPATCH_LEASE: '90000',
      ONCEPORT_DISPATCH_RETRIES: '0',
      ONCEPORT_DISPATCH_RETRY_BACKOFF: '20',
      ONCEPORT_DISPATCHER_ID: 'dispatcher-7f9c',
      ONCEPORT_CREDENTIALS_DIR: '/var/run/secrets/onceport',
    });
    expect(dispatcherConfigFrom(env)).toEqual({
      dispatcherId: 'dispatcher-7f9c',
      concurrency: 4,
      leaseMs: 90_000,
      retries: 0,
      retryBackoffMs: 20,
    });
    expect(env.ONCEPORT_CREDENTIALS_DIR).toBe('/var/run/secrets/onceport');
  });

  it('refuses a start without the encryption key ring, naming it', () => {
    expect(() => loadEnvConfig(schema, {})).toThrow(/ONCEPORT_ENCRYPTION_KEYS/);
  });

  it('names every bad variable at once, with what it expects', () => {
    let error: unknown;
    try {
      loadEnvConfig(schema, {
        ...keys,
        ONCEPORT_DISPATCH_CONCURRENCY: 'lots',
        ONCEPORT_DISPATCH_LEASE: '10',
        ONCEPORT_DISPATCH_RETRIES: '-1',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EnvConfigError);
    expect((error as EnvConfigError).problems.map((p) => p.message)).toEqual([
      'ONCEPORT_DISPATCH_CONCURRENCY: invalid value (not shown); expected a whole number of concurrent dispatches between 1 and 1024',
      'ONCEPORT_DISPATCH_LEASE: invalid value (not shown); expected a lease in milliseconds, at least 1000',
      'ONCEPORT_DISPATCH_RETRIES: invalid value (not shown); expected a whole number of retries between 0 and 20',
    ]);
  });
});
