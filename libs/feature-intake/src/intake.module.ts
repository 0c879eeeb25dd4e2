import type { Server } from 'node:http';
import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ActorDirectory, loadToolContracts } from '@onceport/config';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { type CommandHandler, openOrm, runMigrations } from '@onceport/event-store';
import {
  AdminAuth,
  AesGcmArgumentSealer,
  COMMAND_HANDLER,
  EVENT_DELIVERY,
  type FeatureModuleOptions,
  PG_POOL,
  SERVICE_CONFIG,
  SERVICE_LOG,
  type ServiceConfig,
  type ServiceLog,
  allMigrations,
  ormConnectionOf,
} from '@onceport/service-kit';
import type { EventDelivery } from '@onceport/messaging';
import type { Pool } from 'pg';
import { JwtResourceServer } from './auth/oauth/oauth-resource-server';
import { ProtectedResourceMetadataController } from './auth/oauth/protected-resource-metadata.controller';
import { ExecutionWatcher } from './await-outcome/execution-watcher';
import { CallToolService } from './call-tool/call-tool.service';
import { RecordDeliveryService } from './deliver-result/record-delivery.service';
import { INTAKE_DEPENDENCIES, type IntakeDependencies } from './intake-dependencies';
import { type IntakeEnv, checkIntakeEnv } from './intake.config';
import { intakeEntities } from './intake.entities';
import { intakeMigrations } from './intake.migrations';
import { hostOriginPolicyOf } from './mcp/host-origin-policy';
import { McpController } from './mcp/mcp.controller';
import { McpSessions } from './mcp/mcp-sessions';
import { IdempotencyKeys } from './rest/idempotency-keys';
import { IdempotentResponses } from './rest/idempotent-responses';
import { QueryExecutionService } from './query-execution/query-execution.service';
import { RunsController } from './runs/runs.controller';
import { TraceAdminController } from './trace-execution/trace-admin.controller';
import { ACTOR_DIRECTORY } from './auth/actor-directory.token';
import { RunsService } from './runs/runs.service';
import { CancelExecutionService } from './cancel-execution/cancel-execution.service';
import { AgentProcessesController } from './rest/agent-processes.controller';
import { RestAgentProcesses } from './rest/agent-processes';
import { ExecutionsController } from './rest/executions.controller';
import { HttpDrain } from './shutdown/http-drain';
import { IntakePruner } from './housekeeping/intake-pruner';
import { INTAKE_PRUNER, PRUNE_SCHEDULE_OPTIONS, PruneSchedule } from './housekeeping/prune-schedule';

export { intakeMigrations };

export type IntakeModuleOptions = FeatureModuleOptions<IntakeEnv>;

/** Intake's own ORM pool (sessions, agent processes, kept responses), beside the kit's pg pool: half its size. */
const ORM_POOL_SHARE = 1 / 2;

const INTAKE_ORM = Symbol('INTAKE_ORM');

/** How long after the grace the last answers get to be written before connections are cut. */
const ANSWER_WRITE_MARGIN_MS = 5_000;

/**
 * A graceful stop (SIGTERM) for the agent's door, before Nest closes the HTTP server: stop taking
 * requests; let calls in flight get their answer (an outcome that arrives within the grace, else
 * the state they are in — never a reset connection); only then stop the watcher and cut what is left.
 */
@Injectable()
class IntakeLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private drain: HttpDrain | null = null;

  constructor(
    @Inject(ExecutionWatcher) private readonly watcher: ExecutionWatcher,
    @Inject(INTAKE_DEPENDENCIES) private readonly deps: IntakeDependencies,
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(INTAKE_ORM) private readonly orm: MikroORM,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) return;
    this.drain = new HttpDrain(server);
    this.drain.install();
  }

  async beforeApplicationShutdown(): Promise<void> {
    const graceMs = this.deps.settings.shutdownGraceMs;
    this.drain?.stopAccepting();
    this.watcher.capWaits(Date.now() + graceMs);
    await this.drain?.settled(graceMs + ANSWER_WRITE_MARGIN_MS);
    this.drain?.closeConnections();
    await this.watcher.stop();
  }

  /** After every request and the pruner are done. */
  async onApplicationShutdown(): Promise<void> {
    await this.orm.close();
  }
}

/** The agent's door: MCP at /mcp, REST at /v1/executions (and /v1/agent-processes to get a process id). Needs `ServiceKitModule`. */
@Module({})
export class IntakeModule {
  /** `env` is checked at once (a bad pair of limits names both variables); contracts, actors and the ORM load while the app is made. */
  static forRoot({ env, contractsDir }: IntakeModuleOptions): DynamicModule {
    checkIntakeEnv(env);
    return {
      module: IntakeModule,
      controllers: [
        McpController,
        ExecutionsController,
        RunsController,
        AgentProcessesController,
        ProtectedResourceMetadataController,
        TraceAdminController,
      ],
      providers: [
        {
          provide: INTAKE_ORM,
          inject: [SERVICE_CONFIG],
          useFactory: async (config: ServiceConfig): Promise<MikroORM> => {
            // Intake's own tables (sessions, agent processes, kept responses, in-flight counts).
            await runMigrations(config.databaseUrl, [...allMigrations, ...intakeMigrations]);
            return openOrm({ ...ormConnectionOf(config, ORM_POOL_SHARE), entities: intakeEntities });
          },
        },
        {
          provide: ACTOR_DIRECTORY,
          useFactory: () => ActorDirectory.load(env.ONCEPORT_ACTORS_FILE, env.ONCEPORT_ACTOR_KEYS_FILE),
        },
        {
          provide: INTAKE_DEPENDENCIES,
          inject: [INTAKE_ORM, SERVICE_LOG, ACTOR_DIRECTORY],
          useFactory: (orm: MikroORM, log: ServiceLog, actors: ActorDirectory) =>
            loadIntakeDependencies(env, contractsDir, orm.em, log, actors),
        },
        {
          provide: ExecutionWatcher,
          inject: [PG_POOL, EVENT_DELIVERY],
          useFactory: async (pool: Pool, delivery: EventDelivery) => {
            const watcher = new ExecutionWatcher(pool, () => undefined, { hear: (types, heard) => delivery.hear(types, heard) });
            await watcher.start();
            return watcher;
          },
        },
        { provide: RestAgentProcesses, inject: [INTAKE_ORM], useFactory: (orm: MikroORM) => new RestAgentProcesses(orm.em) },
        {
          provide: McpSessions,
          inject: [INTAKE_DEPENDENCIES, PG_POOL],
          useFactory: (deps: IntakeDependencies, pool: Pool) => new McpSessions(deps.em, pool, deps.settings.sessionIdleMs),
        },
        {
          provide: IdempotencyKeys,
          inject: [COMMAND_HANDLER, INTAKE_DEPENDENCIES],
          useFactory: (commands: CommandHandler, deps: IntakeDependencies) => new IdempotencyKeys(commands, deps.keyring),
        },
        {
          provide: IdempotentResponses,
          inject: [INTAKE_DEPENDENCIES],
          useFactory: (deps: IntakeDependencies) => new IdempotentResponses(deps.em),
        },
        RunsService,
        CallToolService,
        QueryExecutionService,
        RecordDeliveryService,
        CancelExecutionService,
        IntakeLifecycle,
        {
          provide: INTAKE_PRUNER,
          inject: [INTAKE_ORM],
          useFactory: (orm: MikroORM) =>
            new IntakePruner(orm.em, {
              sessionIdleMs: env.ONCEPORT_MCP_SESSION_IDLE_MS,
              unusedAgentProcessMs: env.ONCEPORT_AGENT_PROCESS_UNUSED_MS,
            }),
        },
        {
          provide: PRUNE_SCHEDULE_OPTIONS,
          inject: [SERVICE_LOG],
          useFactory: (log: ServiceLog) => ({ intervalMs: env.ONCEPORT_PRUNE_INTERVAL_MS, log }),
        },
        PruneSchedule,
      ],
    };
  }
}

/** Intake's own parts: contracts, keys, OAuth and limits from its variables, and the actors file as loaded. */
async function loadIntakeDependencies(
  env: IntakeEnv,
  contractsDir: string,
  em: EntityManager,
  log: ServiceLog,
  actors: ActorDirectory,
): Promise<IntakeDependencies> {
  const { byName } = await loadToolContracts(contractsDir);
  // Keys are fetched at the first token, not here: an issuer that is down must not stop API-key callers.
  const oauth = actors.oauth
    ? new JwtResourceServer(actors.oauth, (subject) => actors.actorForOAuthSubject(subject)?.id ?? null, [...byName.keys()], { log })
    : undefined;
  return {
    em,
    contracts: byName,
    keyring: env.ONCEPORT_HMAC_KEYS,
    sealer: new AesGcmArgumentSealer(env.ONCEPORT_ENCRYPTION_KEYS),
    actors,
    admins: new AdminAuth(actors, { log }),
    ...(oauth ? { oauth } : {}),
    limits: actors,
    settings: {
      defaultWaitMs: env.ONCEPORT_ANSWER_WAIT_MS,
      maxWaitMs: env.ONCEPORT_MAX_WAIT_MS,
      maxBodyBytes: env.ONCEPORT_MAX_BODY_BYTES,
      maxArgumentBytes: env.ONCEPORT_MAX_ARGUMENT_BYTES,
      shutdownGraceMs: env.ONCEPORT_SHUTDOWN_GRACE_MS,
      maxBatchCalls: env.ONCEPORT_MAX_BATCH_CALLS,
      hostOrigin: hostOriginPolicyOf({
        bindHost: env.HOST,
        allowedHosts: env.ONCEPORT_ALLOWED_HOSTS,
        allowedOrigins: env.ONCEPORT_ALLOWED_ORIGINS,
      }),
      sessionIdleMs: env.ONCEPORT_MCP_SESSION_IDLE_MS,
      resumedStreamsPerActor: env.ONCEPORT_MCP_RESUMED_STREAMS_PER_ACTOR,
    },
  };
}
