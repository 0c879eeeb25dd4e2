import { hostname } from 'node:os';
import { encryptionKeys } from '@onceport/config';
import { credentialsEnvShape } from '@onceport/target-channels';
import { z } from 'zod';

// Each message is the "expected" half of the start-up error, which names the variable.
const wholeNumber = (min: number, max: number, expected: string) =>
  z.coerce.number({ error: expected }).int({ error: expected }).min(min, { error: expected }).max(max, { error: expected });

/**
 * The dispatcher's own variables, validated at start together with the runtime's
 * (`DATABASE_URL`, `NATS_URL`, `ONCEPORT_CONTRACTS_DIR`, …) by `bootstrapService`.
 */
export const dispatcherEnvShape = {
  /** Dispatches in flight at once per replica. */
  ONCEPORT_DISPATCH_CONCURRENCY: wholeNumber(1, 1024, 'a whole number of concurrent dispatches between 1 and 1024').default(32),
  /** How long a started dispatch is this replica's before the reconciler may treat it as abandoned. */
  ONCEPORT_DISPATCH_LEASE: wholeNumber(1000, 24 * 3_600_000, 'a lease in milliseconds, at least 1000').default(60_000),
  /** How many more tries a dispatch that failed before sending gets; 0 records the first failure as final. */
  ONCEPORT_DISPATCH_RETRIES: wholeNumber(0, 20, 'a whole number of retries between 0 and 20').default(3),
  /** Pause before the first retry in milliseconds; it doubles with every further retry. */
  ONCEPORT_DISPATCH_RETRY_BACKOFF: wholeNumber(0, 60_000, 'a backoff in milliseconds between 0 and 60000').default(500),
  /** Written into DispatchStarted, so an operator can tell which replica held a lease. */
  ONCEPORT_DISPATCHER_ID: z
    .string({ error: 'a name for this dispatcher replica' })
    .min(1)
    .max(200, { error: 'a name for this dispatcher replica, at most 200 characters' })
    .default(() => `${hostname()}-${process.pid}`),
  /** Opens the sensitive arguments intake sealed; the same ring as intake's (`ONCEPORT_ENCRYPTION_KEYS`). */
  ONCEPORT_ENCRYPTION_KEYS: encryptionKeys,
  ...credentialsEnvShape,
};

export type DispatcherEnv = z.output<z.ZodObject<typeof dispatcherEnvShape>>;

export interface DispatcherConfig {
  readonly dispatcherId: string;
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly retries: number;
  readonly retryBackoffMs: number;
}

export function dispatcherConfigFrom(env: DispatcherEnv): DispatcherConfig {
  return {
    dispatcherId: env.ONCEPORT_DISPATCHER_ID,
    concurrency: env.ONCEPORT_DISPATCH_CONCURRENCY,
    leaseMs: env.ONCEPORT_DISPATCH_LEASE,
    retries: env.ONCEPORT_DISPATCH_RETRIES,
    retryBackoffMs: env.ONCEPORT_DISPATCH_RETRY_BACKOFF,
  };
}
