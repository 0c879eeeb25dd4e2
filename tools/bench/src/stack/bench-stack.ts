import { join } from 'node:path';
import { DEFAULT_POOL_MAX } from '@onceport/event-store';
import { NatsServer } from '@onceport/fault-kit';
import { type AppProcess, type Gateway, type GatewayFixture, startGateway } from '@onceport/gateway-harness';
import { type BenchDatabase, createBenchDatabase } from './bench-database';
import { type TargetProcess, startTargetProcess } from './target-process';

export const AGENT_KEY = 'bench-agent-key-7f3a9c';
export const AGENT_ID = 'agent:bench';

/**
 * One actor plays every agent of the bench: 1,000 callers of the storm at once, 256 agents of the
 * throughput run flat out. The gateway's per-actor defaults are for one real agent; this is a load.
 */
export const BENCH_LIMITS = { rate_per_second: 1_000_000, burst: 1_000_000, max_in_flight: 1_000_000 };

/** Secrets for the demo contracts' credential refs (the dispatcher refuses to send without them). */
export const CREDENTIALS = {
  ONCEPORT_CREDENTIAL_DEPLOY_API: 'bench-deploy-secret',
  ONCEPORT_CREDENTIAL_MAIL_API: 'bench-mail-secret',
  ONCEPORT_CREDENTIAL_PAYMENTS_LIVE: 'bench-pay-secret',
  ONCEPORT_CREDENTIAL_CI_READONLY: 'bench-ci-secret',
};

/** Every process of one installation, each on its own: the four services, NATS, the target; PostgreSQL is the machine's. */
export interface BenchStack {
  readonly db: BenchDatabase;
  readonly nats: NatsServer;
  readonly target: TargetProcess;
  readonly fixture: GatewayFixture;
  /** The services' processes, to kill and restart replicas (the soak's nemesis). */
  readonly gateway: Gateway;
  /** Replica 0 of each service. */
  readonly intake: AppProcess;
  readonly authorization: AppProcess;
  readonly dispatcher: AppProcess;
  readonly reconciler: AppProcess;
  /** Process ids by name, for CPU accounting. */
  pids(): Record<string, number>;
  stop(): Promise<void>;
}

export interface BenchStackOptions {
  readonly label: string;
  readonly serverUrl: string;
  /** Extra environment for every service (e.g. ONCEPORT_TRACE_FILE). */
  readonly env?: Record<string, string>;
  /** Each service writes a V8 CPU profile (`--cpu-prof`) into `<dir>/<service>` when it stops. */
  readonly profileTo?: string;
  /** Processes per service (default 1). */
  readonly replicas?: number;
}

export async function startBenchStack(options: BenchStackOptions): Promise<BenchStack> {
  const [db, nats, target] = await Promise.all([
    createBenchDatabase(options.serverUrl, options.label),
    NatsServer.start({ monitor: true }), // its counters: NATS messages per execution
    startTargetProcess(),
  ]);
  const gateway = await startGateway({
    targetUrl: target.url,
    actors: [{ id: AGENT_ID, key: AGENT_KEY, tools: '*', limits: BENCH_LIMITS }],
    database: db,
    nats,
    env: {
      ...CREDENTIALS,
      ONCEPORT_ANSWER_WAIT_MS: '30000',
      // The storm holds 1,000 callers on one execution; the dispatcher must keep up with 256 agents.
      ONCEPORT_DISPATCH_CONCURRENCY: '256',
      // 1,000 MCP sessions hold a stream each and post calls besides: past the default cap of 1,024
      // sockets intake closes new ones at once, and the storm's callers could not even connect.
      ONCEPORT_HTTP_MAX_CONNECTIONS: '8000',
      LOG_LEVEL: 'warn',
      // What a deployment runs with unless the run says otherwise (options.env).
      ONCEPORT_PG_POOL_MAX: String(DEFAULT_POOL_MAX),
      ...options.env,
    },
    // Authorization alone first: it migrates the fresh database while the others would wait on its lock anyway.
    startOrder: [['authorization'], ['dispatcher', 'reconciler'], ['intake']],
    ...(options.replicas
      ? {
          replicas: {
            intake: options.replicas,
            authorization: options.replicas,
            dispatcher: options.replicas,
            reconciler: options.replicas,
          },
        }
      : {}),
    ...(options.profileTo ? { nodeArgs: profileArgs(options.profileTo) } : {}),
  });
  const [fixture, intake, authorization, dispatcher, reconciler] = [
    gateway.fixture,
    gateway.process('intake'),
    gateway.process('authorization'),
    gateway.process('dispatcher'),
    gateway.process('reconciler'),
  ];
  return {
    db,
    nats,
    target,
    fixture,
    gateway,
    intake,
    authorization,
    dispatcher,
    reconciler,
    pids: () => ({
      intake: intake.pid,
      authorization: authorization.pid,
      dispatcher: dispatcher.pid,
      reconciler: reconciler.pid,
      'nats-server': nats.pid ?? -1,
      target: target.pid,
    }),
    async stop() {
      await gateway.stop();
      await Promise.all([target.stop(), nats.stop()]);
      await db.drop();
    },
  };
}

export const PROFILED_SERVICES = ['intake', 'authorization', 'dispatcher', 'reconciler'] as const;

/** V8 writes a profile (`--cpu-prof`, not allowed in NODE_OPTIONS) into the service's directory when it exits. */
function profileArgs(dir: string): Record<(typeof PROFILED_SERVICES)[number], string[]> {
  const args = (service: string) => ['--cpu-prof', '--cpu-prof-dir', join(dir, service)];
  return { intake: args('intake'), authorization: args('authorization'), dispatcher: args('dispatcher'), reconciler: args('reconciler') };
}
