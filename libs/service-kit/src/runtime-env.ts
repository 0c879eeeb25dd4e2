import { contractsDir, databaseUrl, logLevel, natsUrl, postgresUrl } from '@onceport/config';
import {
  DEFAULT_POOL_MAX,
  POOL_MAX_RANGE,
  DEFAULT_QUARANTINE_AFTER_ATTEMPTS,
  MAX_QUARANTINE_AFTER_ATTEMPTS,
  SERVICE_ROLE_PATTERN,
} from '@onceport/event-store';
import { z } from 'zod';
import { ackWaitEnvShape } from '@onceport/messaging';
import { type ServerLimitsEnv, serverLimitsEnvShape } from './http/server-limits';

/**
 * The address a service listens on: loopback unless told otherwise, so a service started by hand is
 * not reachable from the network; container deployments set `HOST=0.0.0.0` explicitly.
 */
export const listenHost = z.string().min(1).max(255).default('127.0.0.1');

/** Environment every service reads at start (validated once by `loadEnvConfig`; errors name the variable). */
export const runtimeEnvShape = {
  DATABASE_URL: databaseUrl,
  NATS_URL: natsUrl,
  ONCEPORT_CONTRACTS_DIR: contractsDir,
  LOG_LEVEL: logLevel,
  ONCEPORT_DELIVERY: z.enum(['jetstream', 'in_process']).default('jetstream'),
  ONCEPORT_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** Failed attempts after which a projection or consumer quarantines an event and goes on without it. */
  ONCEPORT_QUARANTINE_AFTER_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_QUARANTINE_AFTER_ATTEMPTS)
    .default(DEFAULT_QUARANTINE_AFTER_ATTEMPTS),
  /**
   * Connections the process's pg pool may open; intake's and the reconciler's ORM pools take half and
   * a quarter as many more. Each subscription holds one for its leader lock (and the process one for LISTEN), so below 8 work waits on them.
   */
  ONCEPORT_PG_POOL_MAX: z.coerce.number().int().min(POOL_MAX_RANGE.min).max(POOL_MAX_RANGE.max).default(DEFAULT_POOL_MAX),
  ...ackWaitEnvShape,
  HOST: listenHost,
  ...serverLimitsEnvShape,
};

/**
 * What the migrate-only step reads (and nothing else): the owner's URL, and the role the services
 * connect as. With neither set, `DATABASE_URL` is the owner and migrates for itself (the embedded
 * start, dev); in production the services' `DATABASE_URL` names the restricted role.
 */
export const migrationEnvShape = {
  DATABASE_URL: databaseUrl,
  // No default of its own: absent, the owner is DATABASE_URL (zod 4 would apply an inner default).
  ONCEPORT_MIGRATION_DATABASE_URL: postgresUrl.optional(),
  ONCEPORT_DATABASE_SERVICE_ROLE: z
    .string({ error: 'a PostgreSQL role name (lower-case letters, digits, _)' })
    .regex(SERVICE_ROLE_PATTERN, { error: 'a PostgreSQL role name (lower-case letters, digits, _)' })
    .optional(),
};

export { type AckWaitSettings, ackWaitEnvShape, ackWaitOf, effectiveAckWaitMs } from '@onceport/messaging';

/** The validated {@link runtimeEnvShape} plus the service's `PORT`. */
export interface RuntimeEnv extends ServerLimitsEnv {
  readonly DATABASE_URL: string;
  readonly NATS_URL: string;
  readonly ONCEPORT_CONTRACTS_DIR: string;
  readonly LOG_LEVEL: string;
  readonly ONCEPORT_DELIVERY: 'jetstream' | 'in_process';
  readonly ONCEPORT_STREAM_REPLICAS: number;
  readonly ONCEPORT_QUARANTINE_AFTER_ATTEMPTS: number;
  readonly ONCEPORT_PG_POOL_MAX: number;
  readonly ONCEPORT_ACK_WAIT_MS?: number | undefined;
  readonly ONCEPORT_ACK_WAIT_MAX_MS?: number | undefined;
  readonly PORT: number;
  readonly HOST: string;
}
