import type { Tracer } from '@opentelemetry/api';
import {
  CommandHandler,
  type EventStore,
  PostgresEventStore,
  configureQuarantineDefaults,
  reportOpenQuarantine,
} from '@onceport/event-store';
import type { Pool } from 'pg';
import { createPool, migrate } from './database';
import { type AckWaitSettings, type EventDelivery, InProcessDelivery, JetStreamDelivery } from '@onceport/messaging';
import { ResultStore } from './results/result-store';
import { type ServiceLog, type Tracing, initTracing, serviceLog } from '@onceport/service-kit';

export interface RuntimeConfig {
  readonly serviceName: string;
  readonly databaseUrl: string;
  readonly delivery: 'jetstream' | 'in_process';
  readonly natsUrl: string;
  readonly streamReplicas?: number;
  /** JetStream ack wait default and ceiling (`ONCEPORT_ACK_WAIT_MS`, `_MAX_MS`); none: each consumer's own or the library's. */
  readonly ackWait?: AckWaitSettings;
  readonly poolSize?: number;
  /** `ONCEPORT_QUARANTINE_AFTER_ATTEMPTS`: failed attempts before a projection or consumer quarantines an event (default 5). */
  readonly quarantineAfterAttempts?: number;
  /** Default: the service kit's pino lines as `serviceName`. */
  readonly log?: ServiceLog;
}

/**
 * What every service stands on: the pool, the migrated store, the command handler every stream
 * is written through, the result store, event delivery and tracing. One per process (the embedded start shares one).
 */
export class OnceportRuntime {
  private constructor(
    readonly config: RuntimeConfig,
    readonly pool: Pool,
    readonly store: EventStore,
    /** Loads, decides and appends for every kind of stream (one per process: it caches execution folds). */
    readonly commands: CommandHandler,
    readonly results: ResultStore,
    readonly delivery: EventDelivery,
    private readonly tracing: Tracing,
    private readonly stopReportingQuarantine: () => void,
  ) {}

  static async create(config: RuntimeConfig): Promise<OnceportRuntime> {
    const log = config.log ?? serviceLog(config.serviceName);
    // Before any projection or consumer is made: they all read the process's quarantine setting.
    if (config.quarantineAfterAttempts !== undefined) configureQuarantineDefaults({ afterAttempts: config.quarantineAfterAttempts });
    const tracing = initTracing({ serviceName: config.serviceName });
    const pool = createPool(config.databaseUrl, config.poolSize ?? 20);
    await migrate(config.databaseUrl);
    const store = new PostgresEventStore(pool);
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
    return new OnceportRuntime(
      config,
      pool,
      store,
      new CommandHandler(store, { pool }),
      new ResultStore(pool),
      delivery,
      tracing,
      reportOpenQuarantine(pool),
    );
  }

  get tracer(): Tracer {
    return this.tracing.tracer;
  }

  /** Readiness: the database answers and event delivery is connected. */
  async readiness(): Promise<{ ready: boolean; checks: Record<string, string> }> {
    const checks: Record<string, string> = {};
    try {
      await this.pool.query('SELECT 1');
      checks['database'] = 'ok';
    } catch (error) {
      checks['database'] = `unavailable: ${(error as Error).message}`;
    }
    checks['delivery'] = this.delivery.isReady() ? 'ok' : 'disconnected';
    return { ready: Object.values(checks).every((v) => v === 'ok'), checks };
  }

  async close(): Promise<void> {
    this.stopReportingQuarantine();
    await this.delivery.stop();
    await this.tracing.shutdown();
    await this.pool.end();
  }

  /** The service's structured log line (pino, JSON on stderr, unless the config gave another). */
  get log(): ServiceLog {
    return this.config.log ?? serviceLog(this.config.serviceName);
  }
}
