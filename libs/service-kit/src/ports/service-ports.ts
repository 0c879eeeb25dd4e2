import type { Tracer } from '@opentelemetry/api';
import {
  CommandHandler,
  type EventStore,
  PostgresEventStore,
  ResultStore,
  configureQuarantineDefaults,
  DEFAULT_POOL_MAX,
  connectionNameOf,
  createPool,
  reportOpenQuarantine,
} from '@onceport/event-store';
import { type EventDelivery, InProcessDelivery, JetStreamDelivery } from '@onceport/messaging';
import type { Pool } from 'pg';
import { migrate } from '../database/service-migrations';
import { type ServiceLog, serviceLog } from '../logging/service-logger';
import { initTracing } from '../tracing/tracing';
import type { ServiceConfig } from './service-config';

/**
 * What every service stands on, made once per process (the embedded start shares one):
 * `ServiceKitModule` provides each under its own token. Tests that wire parts by hand open them here.
 */
export interface ServicePorts {
  readonly config: ServiceConfig;
  readonly pool: Pool;
  /** Migrated before it is handed out. */
  readonly store: EventStore;
  /** Loads, decides and appends for every kind of stream (one per process: it caches execution folds). */
  readonly commands: CommandHandler;
  readonly results: ResultStore;
  /** Started before it is handed out. */
  readonly delivery: EventDelivery;
  readonly tracer: Tracer;
  readonly log: ServiceLog;
  /** Stops delivery, tracing and the pool, in that order; after the consumers stopped. */
  close(): Promise<void>;
}

export async function openServicePorts(config: ServiceConfig): Promise<ServicePorts> {
  const log = config.log ?? serviceLog(config.serviceName);
  // Before any projection or consumer is made: they all read the process's quarantine settings.
  configureQuarantineDefaults({
    log,
    ...(config.quarantineAfterAttempts !== undefined ? { afterAttempts: config.quarantineAfterAttempts } : {}),
  });
  const tracing = initTracing({ serviceName: config.serviceName });
  const pool = createPool(config.databaseUrl, {
    max: config.poolSize ?? DEFAULT_POOL_MAX,
    applicationName: connectionNameOf(config.serviceName),
  });
  await migrate(config.databaseUrl);
  const onError = (error: unknown): void => log('warn', 'event delivery error', { error: String(error) });
  const delivery: EventDelivery =
    config.delivery === 'jetstream'
      ? new JetStreamDelivery(pool, {
          natsUrl: config.natsUrl,
          connectionName: config.serviceName,
          onError,
          ackWait: config.ackWait ?? {},
          ...(config.streamReplicas ? { streamReplicas: config.streamReplicas } : {}),
        })
      : new InProcessDelivery(pool, onError);
  await delivery.start();
  // What this process commits goes to the delivery at once (on JetStream: published by the writer itself).
  const store = new PostgresEventStore(pool, undefined, (events) => delivery.committed(events));
  const stopReportingQuarantine = reportOpenQuarantine(pool);
  return {
    config,
    pool,
    store,
    commands: new CommandHandler(store, { pool }),
    results: new ResultStore(pool),
    delivery,
    tracer: tracing.tracer,
    log,
    async close() {
      stopReportingQuarantine();
      await delivery.stop();
      await tracing.shutdown();
      await pool.end();
    },
  };
}
