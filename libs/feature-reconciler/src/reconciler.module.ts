import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { ActorDirectory, loadToolContracts } from '@onceport/config';
import { HttpChannel, TargetChannels } from '@onceport/target-channels';
import { EntityManager, type MikroORM } from '@mikro-orm/postgresql';
import { openOrm, runMigrations } from '@onceport/event-store';
import { readModelEntities } from '@onceport/read-models';
import { AesGcmArgumentSealer, type OnceportRuntime, allMigrations } from '@onceport/runtime';
import { serviceLog } from '@onceport/service-kit';
import type { ReconcilerEnv } from './reconciler.config';
import { reconcilerMigrations } from './reconciler-migrations';
import { ADMINS, RECONCILER_ORM, SETTLE_HANDLER, SWEEPER } from './reconciler.tokens';
import { ReviewController } from './resolve-review/review.controller';
import { OutcomeUnknownConsumer } from './settle-execution/outcome-unknown.consumer';
import { SettleExecutionHandler } from './settle-execution/settle-execution.handler';
import { Sweeper } from './sweep/sweeper';

/** The read model and the reconcile checks, beside the runtime's pg pool (projection, appends). */
const ORM_POOL_SIZE = 5;

@Injectable()
class SweeperLifecycle implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(SWEEPER) private readonly sweeper: Sweeper,
    @Inject(HttpChannel) private readonly channel: HttpChannel,
    @Inject(RECONCILER_ORM) private readonly orm: MikroORM,
  ) {}

  onModuleInit(): void {
    this.sweeper.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.channel.close();
    await this.orm.close();
  }
}

/** Settles unknown outcomes: OutcomeUnknown from JetStream, and a sweep of the store for what was missed. */
@Module({})
export class ReconcilerModule {
  /** `credentialsEnv`: where probes read `ONCEPORT_CREDENTIAL_<REF>` (the embedded start passes its own, like the dispatcher's). */
  static async forRoot(
    runtime: OnceportRuntime,
    env: ReconcilerEnv,
    contractsDir: string,
    credentialsEnv: NodeJS.ProcessEnv = process.env,
  ): Promise<DynamicModule> {
    // The reconciler's own table (claims and check times), like intake applies its own.
    await runMigrations(runtime.config.databaseUrl, [...allMigrations, ...reconcilerMigrations]);
    const { byName } = await loadToolContracts(contractsDir);
    const orm = await openOrm({ databaseUrl: runtime.config.databaseUrl, entities: readModelEntities, poolSize: ORM_POOL_SIZE });
    // The same channels and credential resolution as the dispatcher's sends.
    const channels = TargetChannels.fromEnv(credentialsEnv);
    const log = serviceLog('reconciler');
    const settle = new SettleExecutionHandler({
      runtime,
      contracts: byName,
      channel: channels.http,
      ssh: channels.ssh,
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
    });
    const sweeper = new Sweeper(
      runtime,
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
    );
    return {
      module: ReconcilerModule,
      controllers: [ReviewController, OutcomeUnknownConsumer],
      providers: [
        { provide: SETTLE_HANDLER, useValue: settle },
        { provide: SWEEPER, useValue: sweeper },
        { provide: HttpChannel, useValue: channels.http },
        { provide: RECONCILER_ORM, useValue: orm },
        { provide: EntityManager, useValue: orm.em },
        { provide: ADMINS, useValue: await ActorDirectory.load(env.ONCEPORT_ACTORS_FILE, env.ONCEPORT_ACTOR_KEYS_FILE) },
        SweeperLifecycle,
      ],
    };
  }
}
