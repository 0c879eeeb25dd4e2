import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { Tracer } from '@opentelemetry/api';
import { ActorDirectory, loadToolContracts } from '@onceport/config';
import type { ToolContract } from '@onceport/domain';
import { HttpChannel, TargetChannels } from '@onceport/target-channels';
import { EntityManager, type MikroORM } from '@mikro-orm/postgresql';
import { type CommandHandler, EVENT_STORE, type EventStore, type ResultStore, openOrm, runMigrations } from '@onceport/event-store';
import type { EventDelivery } from '@onceport/messaging';
import { readModelEntities } from '@onceport/read-models';
import {
  AesGcmArgumentSealer,
  COMMAND_HANDLER,
  EVENT_DELIVERY,
  type FeatureModuleOptions,
  PG_POOL,
  RESULT_STORE,
  SERVICE_CONFIG,
  type ServiceConfig,
  TRACER,
  allMigrations,
  serviceLog,
  ormConnectionOf,
} from '@onceport/service-kit';
import type { Pool } from 'pg';
import type { ReconcilerEnv } from './reconciler.config';
import { reconcilerMigrations } from './reconciler-migrations';
import { ADMINS, RECONCILER_CHANNELS, RECONCILER_CONTRACTS, RECONCILER_ORM, SETTLE_HANDLER, SWEEPER } from './reconciler.tokens';
import { ReviewController } from './resolve-review/review.controller';
import { OutcomeUnknownConsumer } from './settle-execution/outcome-unknown.consumer';
import { SettleExecutionHandler } from './settle-execution/settle-execution.handler';
import { ExecutionBacklogReporter } from './metrics/execution-backlog.reporter';
import { Sweeper } from './sweep/sweeper';

/** The read model and the reconcile checks, beside the kit's pg pool (projection, appends): a quarter of its size. */
const ORM_POOL_SHARE = 1 / 4;

@Injectable()
class SweeperLifecycle implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(SWEEPER) private readonly sweeper: Sweeper,
    @Inject(RECONCILER_CHANNELS) private readonly channels: TargetChannels,
    @Inject(RECONCILER_ORM) private readonly orm: MikroORM,
  ) {}

  onModuleInit(): void {
    this.sweeper.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    // HTTP pools and MCP upstream sessions (stdio servers the task probes started are stopped).
    await this.channels.close();
    await this.orm.close();
  }
}

export type ReconcilerModuleOptions = FeatureModuleOptions<ReconcilerEnv>;

/**
 * Settles unknown outcomes: OutcomeUnknown from JetStream, and a sweep of the store for what was
 * missed. Needs `ServiceKitModule` in the same app.
 *
 * @example ReconcilerModule.forRoot({ env, contractsDir, environment: process.env })
 */
@Module({})
export class ReconcilerModule {
  /** `environment`: where probes read `ONCEPORT_CREDENTIAL_<REF>` (the embedded start passes its own, like the dispatcher's). */
  static forRoot({ env, contractsDir, environment }: ReconcilerModuleOptions): DynamicModule {
    const log = serviceLog('reconciler');
    return {
      module: ReconcilerModule,
      controllers: [ReviewController, OutcomeUnknownConsumer],
      providers: [
        {
          provide: RECONCILER_ORM,
          inject: [SERVICE_CONFIG],
          useFactory: async (config: ServiceConfig): Promise<MikroORM> => {
            // The reconciler's own table (claims and check times), like intake applies its own.
            await runMigrations(config.databaseUrl, [...allMigrations, ...reconcilerMigrations]);
            return openOrm({ ...ormConnectionOf(config, ORM_POOL_SHARE), entities: readModelEntities });
          },
        },
        { provide: EntityManager, inject: [RECONCILER_ORM], useFactory: (orm: MikroORM) => orm.em },
        { provide: RECONCILER_CONTRACTS, useFactory: async () => (await loadToolContracts(contractsDir)).byName },
        // The same channels and credential resolution as the dispatcher's sends.
        { provide: RECONCILER_CHANNELS, useFactory: () => TargetChannels.fromEnv(environment ?? process.env) },
        { provide: HttpChannel, inject: [RECONCILER_CHANNELS], useFactory: (channels: TargetChannels) => channels.http },
        { provide: ADMINS, useFactory: () => ActorDirectory.load(env.ONCEPORT_ACTORS_FILE, env.ONCEPORT_ACTOR_KEYS_FILE) },
        {
          provide: SETTLE_HANDLER,
          inject: [COMMAND_HANDLER, RESULT_STORE, TRACER, RECONCILER_CONTRACTS, RECONCILER_CHANNELS],
          useFactory: (
            commands: CommandHandler,
            results: ResultStore,
            tracer: Tracer,
            contracts: ReadonlyMap<string, ToolContract>,
            channels: TargetChannels,
          ) =>
            new SettleExecutionHandler({
              commands,
              results,
              tracer,
              contracts,
              channel: channels.http,
              ssh: channels.ssh,
              mcp: channels.mcp,
              credentials: channels.credentials,
              sealer: new AesGcmArgumentSealer(env.ONCEPORT_ENCRYPTION_KEYS),
              reconcilerId: env.ONCEPORT_RECONCILER_ID,
              log,
              limits: {
                maxProbes: env.ONCEPORT_PROBE_MAX,
                probeBackoffMs: env.ONCEPORT_PROBE_BACKOFF_MS,
                maxProbeBackoffMs: env.ONCEPORT_PROBE_BACKOFF_MAX_MS,
                maxAttempts: env.ONCEPORT_DISPATCH_MAX_ATTEMPTS,
              },
            }),
        },
        {
          provide: SWEEPER,
          inject: [PG_POOL, EVENT_STORE, COMMAND_HANDLER, EVENT_DELIVERY, RECONCILER_ORM, SETTLE_HANDLER],
          useFactory: (
            pool: Pool,
            store: EventStore,
            commands: CommandHandler,
            delivery: EventDelivery,
            orm: MikroORM,
            settle: SettleExecutionHandler,
          ) =>
            new Sweeper(
              { pool, store, commands, delivery },
              orm.em,
              settle,
              {
                intervalMs: env.ONCEPORT_RECONCILE_SWEEP_MS,
                redeliverAfterMs: env.ONCEPORT_REDELIVER_AFTER_MS,
                batch: 200,
                concurrency: env.ONCEPORT_RECONCILE_CONCURRENCY,
                claimMs: env.ONCEPORT_RECONCILE_CLAIM_MS,
                replicaId: env.ONCEPORT_RECONCILER_ID,
              },
              log,
            ),
        },
        SweeperLifecycle,
        ExecutionBacklogReporter,
      ],
    };
  }
}
