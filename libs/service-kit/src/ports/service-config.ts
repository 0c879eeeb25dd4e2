import type { AckWaitSettings } from '@onceport/messaging';
import type { ServiceLog } from '../logging/service-logger';
import { type RuntimeEnv, ackWaitOf } from '../runtime-env';

/** What a process's ports are made from (`ServiceKitModule.forRoot(config)`). */
export interface ServiceConfig {
  readonly serviceName: string;
  readonly databaseUrl: string;
  readonly delivery: 'jetstream' | 'in_process';
  readonly natsUrl: string;
  /** `LOG_LEVEL`, for a feature that makes a logger of its own (the dispatcher's scrubbing one). */
  readonly logLevel?: string;
  readonly streamReplicas?: number;
  /** JetStream ack wait default and ceiling (`ONCEPORT_ACK_WAIT_MS`, `_MAX_MS`); none: each consumer's own or the library's. */
  readonly ackWait?: AckWaitSettings;
  /** `ONCEPORT_PG_POOL_MAX`: connections the process's pg pool may open (default 8). */
  readonly poolSize?: number;
  /** `ONCEPORT_QUARANTINE_AFTER_ATTEMPTS`: failed attempts before a projection or consumer quarantines an event (default 5). */
  readonly quarantineAfterAttempts?: number;
  /** Default: the service kit's pino lines as `serviceName`. */
  readonly log?: ServiceLog;
}

/** The config a service's validated environment gives (`overrides` win: the embedded start's delivery). */
export function serviceConfigOf(serviceName: string, env: RuntimeEnv, overrides: Partial<ServiceConfig> = {}): ServiceConfig {
  return {
    serviceName,
    databaseUrl: env.DATABASE_URL,
    natsUrl: env.NATS_URL,
    delivery: env.ONCEPORT_DELIVERY,
    logLevel: env.LOG_LEVEL,
    streamReplicas: env.ONCEPORT_STREAM_REPLICAS,
    ackWait: ackWaitOf(env),
    quarantineAfterAttempts: env.ONCEPORT_QUARANTINE_AFTER_ATTEMPTS,
    poolSize: env.ONCEPORT_PG_POOL_MAX,
    ...overrides,
  };
}
