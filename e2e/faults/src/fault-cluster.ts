import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { kebabEventName } from '@onceport/contracts';
import { readChainsFromDatabase, verifyChains } from '@onceport/event-store';
import { EXECUTION_STREAM_NAME } from '@onceport/messaging';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { type FaultProxy, NatsServer, type PostgresCluster, startFaultProxy } from '@onceport/fault-kit';
import { Pool } from 'pg';
import { FAULT_ACTION_ENV, FAULT_POINT_ENV, type FaultAction } from '@onceport/fault-points';
import {
  type AppProcess,
  type ExecutionOutcome,
  type Gateway,
  type GatewayService,
  UNSETTLED_STATUSES,
  readExecutionOutcomes,
  startGateway,
} from '@onceport/gateway-harness';
import { type TestTarget, startTestTarget } from '@onceport/test-target';

export type AppName = GatewayService;
const APPS: readonly AppName[] = ['authorization', 'dispatcher', 'reconciler', 'intake'];
export const AGENT_KEY = 'fault-agent-key-1';
const UNSETTLED = UNSETTLED_STATUSES;

/** One operation as a client saw it: Jepsen-style ok / failed / unknown, with the execution it named. */
export interface Operation {
  readonly intent: string;
  readonly outcome: 'ok' | 'failed' | 'unknown';
  readonly executionId: string | null;
  readonly state: string | null;
}

/** A fault point to arm in one app: its name, and whether it kills (default) or stops the process there. */
export type ArmedPoint = string | { readonly point: string; readonly action: FaultAction };

export interface StoredEventRow {
  readonly streamId: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly actor: string | null;
}

export interface ClusterOptions {
  readonly faults?: Partial<Record<AppName, ArmedPoint>>;
  readonly database?: TestDatabase;
  /** The fault tools' target origin goes through a fault-kit TCP proxy (`cluster.proxy`). */
  readonly proxyTarget?: boolean;
  /** Extra environment for one app (e.g. an ack wait ceiling). */
  readonly appEnv?: Partial<Record<AppName, Record<string, string>>>;
  /** More contract files beside the fault tools (file name → YAML), e.g. MCP upstreams; `http://fault-target` is the target's origin there too. */
  readonly contracts?: Readonly<Record<string, string>>;
}

export interface Verdict {
  readonly scenario: string;
  readonly executions: number;
  readonly effects: number;
  readonly duplicates: number;
  readonly lost: number;
  readonly stuck: number;
  readonly settleP50Ms: number;
  readonly settleP99Ms: number;
  readonly chainOk: boolean;
  readonly states: Record<string, number>;
}

/** Settings of every app: quick leases, sweeps and redeliveries, so a scenario heals within seconds. */
const FAST_HEALING = {
  ONCEPORT_CREDENTIAL_DEPLOY_API: 'fault-secret',
  ONCEPORT_ANSWER_WAIT_MS: '3000',
  ONCEPORT_DISPATCH_LEASE: '1500',
  ONCEPORT_RECONCILE_SWEEP_MS: '250',
  ONCEPORT_REDELIVER_AFTER_MS: '2000',
  ONCEPORT_PROBE_BACKOFF_MS: '100',
  ONCEPORT_DISPATCH_RETRY_BACKOFF: '100',
  // Consumers without their own ack wait see a redelivery after 2 s instead of 30 s.
  ONCEPORT_ACK_WAIT_MS: '2000',
};

function faultPointEnv(armed?: ArmedPoint): Record<string, string> {
  const point = typeof armed === 'string' ? { point: armed, action: 'kill' as const } : armed;
  return point ? { [FAULT_POINT_ENV]: point.point, [FAULT_ACTION_ENV]: point.action } : {};
}

/** Four services as processes over a private NATS, a fresh database and a real target; parts die on demand. */
export class FaultCluster {
  readonly history: Operation[] = [];

  private constructor(
    readonly db: TestDatabase,
    readonly nats: NatsServer,
    readonly target: TestTarget,
    readonly gateway: Gateway,
    readonly proxy: FaultProxy | null,
    private readonly appEnv: Partial<Record<AppName, Record<string, string>>>,
  ) {}

  static async start(options: ClusterOptions = {}): Promise<FaultCluster> {
    const [db, nats, target] = await Promise.all([options.database ?? createTestDatabase(), NatsServer.start(), startTestTarget()]);
    // Every send counts: with the target's own dedupe on, a second send of a keyed request would
    // be one effect, and a duplicate dispatch could never show up as a duplicate.
    target.setBehavior({ route: '*', honour_idempotency: false });
    const proxy = options.proxyTarget
      ? await startFaultProxy({ upstream: { host: '127.0.0.1', port: Number(new URL(target.url).port) } })
      : null;
    const faultOrigin = proxy ? proxy.url('http') : target.url;
    const appEnv = options.appEnv ?? {};
    const serviceEnv = Object.fromEntries(APPS.map((app) => [app, { ...faultPointEnv(options.faults?.[app]), ...appEnv[app] }]));
    try {
      const gateway = await startGateway({
        targetUrl: target.url,
        actors: [{ id: 'agent:fault', key: AGENT_KEY, tools: '*' }],
        database: db,
        nats,
        contracts: {
          'faults.yaml': readFileSync(join(__dirname, 'fault-contracts.yaml'), 'utf8').replaceAll('http://fault-target', faultOrigin),
          ...Object.fromEntries(
            Object.entries(options.contracts ?? {}).map(([file, yaml]) => [file, yaml.replaceAll('http://fault-target', faultOrigin)]),
          ),
        },
        env: FAST_HEALING,
        serviceEnv,
        startOrder: [APPS],
      });
      return new FaultCluster(db, nats, target, gateway, proxy, appEnv);
    } catch (error) {
      // no server left behind by a start that failed half-way (the gateway stopped its own processes)
      await Promise.all([target.stop(), nats.stop(), proxy?.stop()]);
      await db.drop();
      throw error;
    }
  }

  /** The app's process now (replica 0). */
  app(app: AppName): AppProcess {
    return this.gateway.process(app);
  }

  async startApp(app: AppName, armed?: ArmedPoint): Promise<AppProcess> {
    return this.gateway.start(app, 0, { ...faultPointEnv(armed), ...this.appEnv[app] });
  }

  /** Starts the app again without a fault point (after it died at one, or was killed). */
  async restart(app: AppName): Promise<void> {
    await this.gateway.restart(app, { env: { ...this.appEnv[app] } });
  }

  async waitForExit(app: AppName, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!(await alive(this.app(app)))) return;
      await sleep(50);
    }
    throw new Error(`${app} did not die at its fault point`);
  }

  /** Waits until the app is parked by SIGSTOP (a fault point with the `stop` action, or `pause`). */
  async waitForStopped(app: AppName | AppProcess, timeoutMs = 20_000): Promise<void> {
    const pid = typeof app === 'string' ? this.app(app).pid : app.pid;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (pid !== undefined && processState(pid) === 'T') return;
      await sleep(20);
    }
    throw new Error(`${typeof app === 'string' ? app : app.name} did not stop`);
  }

  /** SIGSTOP / SIGCONT: the process keeps its sockets and state but does nothing meanwhile. */
  signal(app: AppName | AppProcess, signal: 'SIGSTOP' | 'SIGCONT'): void {
    const pid = typeof app === 'string' ? this.app(app).pid : app.pid;
    if (pid !== undefined) process.kill(pid, signal);
  }

  /** Every stored event of the executions, in stream order. */
  async events(): Promise<StoredEventRow[]> {
    const rows = await this.db.pool.query(
      `SELECT stream_id, event_type, data, metadata FROM onceport.events WHERE stream_id LIKE 'execution-%' ORDER BY stream_id, stream_version`,
    );
    return rows.rows.map((row) => ({ streamId: row.stream_id, type: row.event_type, data: row.data, actor: row.metadata?.actor ?? null }));
  }

  /** How many events of `type` each execution stream holds (streams without one count 0). */
  async countPerExecution(type: string): Promise<number[]> {
    const events = await this.events();
    const streams = new Map<string, number>();
    for (const e of events) streams.set(e.streamId, (streams.get(e.streamId) ?? 0) + (e.type === type ? 1 : 0));
    return [...streams.values()];
  }

  /** Waits until `predicate` holds over the stored events (or throws when the time is up). */
  async waitForEvents(what: string, predicate: (events: StoredEventRow[]) => boolean, timeoutMs = 30_000): Promise<StoredEventRow[]> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const events = await this.events();
      if (predicate(events)) return events;
      await sleep(100);
    }
    throw new Error(`timed out waiting for ${what}:\n${JSON.stringify(await this.events(), null, 1)}`);
  }

  /**
   * The JetStream consumers of the execution stream whose names start with `durable--` (one per
   * event type), with their counters: `delivered` counts every hand-out, redeliveries included;
   * `stored` is how many events of the consumer's type the store holds (each published once here).
   */
  async consumerInfo(durable: string): Promise<{ name: string; delivered: number; stored: number; ackPending: number }[]> {
    const storedByConsumer = new Map<string, number>();
    for (const e of await this.events())
      storedByConsumer.set(
        `${durable}--${kebabEventName(e.type)}`,
        (storedByConsumer.get(`${durable}--${kebabEventName(e.type)}`) ?? 0) + 1,
      );
    const nc = await connect({ servers: this.nats.url, reconnect: false });
    try {
      const jsm = await jetstreamManager(nc);
      const result = [];
      for await (const info of jsm.consumers.list(EXECUTION_STREAM_NAME)) {
        if (!info.name.startsWith(`${durable}--`)) continue;
        result.push({
          name: info.name,
          delivered: info.delivered.consumer_seq,
          stored: storedByConsumer.get(info.name) ?? 0,
          ackPending: info.num_ack_pending,
        });
      }
      return result;
    } finally {
      await nc.close();
    }
  }

  /** A REST call recorded in the history; a dropped connection or a 5xx is an unknown outcome. */
  async call(tool: string, args: Record<string, unknown>, intent: string, intake = this.app('intake')): Promise<Operation> {
    let op: Operation;
    try {
      const response = await fetch(`${intake?.url}/v1/executions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${AGENT_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tool, arguments: args, wait_ms: 3000 }),
        signal: AbortSignal.timeout(15_000),
      });
      const body = (await response.json()) as { execution_id?: string; state?: string };
      const outcome = response.status < 300 ? (body.state === 'failed' || body.state === 'denied' ? 'failed' : 'ok') : 'unknown';
      op = { intent, outcome, executionId: body.execution_id ?? null, state: body.state ?? null };
    } catch {
      op = { intent, outcome: 'unknown', executionId: null, state: null };
    }
    this.history.push(op);
    return op;
  }

  async executions(): Promise<Map<string, ExecutionOutcome>> {
    return readExecutionOutcomes(this.db.pool);
  }

  /** Waits until no execution is left accepted, authorized, dispatched or unknown (or the time is up). */
  async drain(timeoutMs = 45_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const all = await this.executions();
      if ([...all.values()].every((e) => !UNSETTLED.has(e.state.status))) return;
      await sleep(200);
    }
  }

  /** The checks after healing: no duplicate effect, nothing lost, nothing stuck, the chain verifies. */
  async verdict(scenario: string): Promise<Verdict> {
    const executions = await this.executions();
    const effects = this.target.effects();
    const perKey = new Map<string, number>();
    for (const effect of effects) perKey.set(effect.idempotencyKey ?? effect.id, (perKey.get(effect.idempotencyKey ?? effect.id) ?? 0) + 1);
    const perIntent = new Map<string, number>();
    for (const effect of effects) {
      const intent = effect.params['project'] ?? String((effect.body as { alarm_id?: string } | null)?.alarm_id ?? effect.id);
      perIntent.set(intent, (perIntent.get(intent) ?? 0) + 1);
    }
    const duplicates = [...perKey.values(), ...perIntent.values()].filter((n) => n > 1).length;
    const lost = this.history.filter((op) => op.executionId !== null && !executions.has(op.executionId)).length;
    const stuck = [...executions.values()].filter((e) => UNSETTLED.has(e.state.status)).length;
    const settleTimes = [...executions.values()].flatMap((e) => (e.settledAt ? [e.settledAt - e.acceptedAt] : [])).sort((a, b) => a - b);
    const chain = await verifyChains(readChainsFromDatabase(this.db.pool));
    const states: Record<string, number> = {};
    for (const e of executions.values()) states[e.state.status] = (states[e.state.status] ?? 0) + 1;
    return {
      scenario,
      executions: executions.size,
      effects: effects.length,
      duplicates,
      lost,
      stuck,
      settleP50Ms: percentile(settleTimes, 0.5),
      settleP99Ms: percentile(settleTimes, 0.99),
      chainOk: chain.firstBrokenLink === null,
      states,
    };
  }

  async stop(): Promise<void> {
    await this.gateway.stop({ kill: true });
    await Promise.all([this.target.stop(), this.nats.stop(), this.proxy?.stop()]);
    await this.db.drop();
  }
}

/**
 * A fresh database on the suite's private PostgreSQL: the scenarios neither compete with other
 * test runs for the shared server's connections nor leave anything on it.
 */
export async function databaseOn(postgres: PostgresCluster, name: string): Promise<TestDatabase> {
  const admin = () => new Pool({ connectionString: postgres.url(), max: 1 });
  const create = admin();
  try {
    await create.query(`CREATE DATABASE ${name}`);
  } finally {
    await create.end();
  }
  const pool = new Pool({ connectionString: postgres.url(name), max: 5 });
  pool.on('error', () => undefined); // a restart breaks idle connections; queries reconnect
  return {
    url: postgres.url(name),
    pool,
    drop: async () => {
      await pool.end();
      const drop = admin();
      try {
        await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await drop.end();
      }
    },
  };
}

async function alive(app: AppProcess | undefined): Promise<boolean> {
  if (!app) return false;
  try {
    process.kill(app.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The state letter of /proc/<pid>/stat ('T': stopped), or null when the process is gone. */
export function processState(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] ?? null;
  } catch {
    return null;
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function printTable(verdicts: readonly Verdict[]): void {
  const header = [
    'scenario',
    'executions',
    'effects',
    'duplicates',
    'lost',
    'stuck',
    'settle p50 ms',
    'settle p99 ms',
    'chain',
    'final states',
  ];
  const rows = verdicts.map((v) =>
    [
      v.scenario,
      v.executions,
      v.effects,
      v.duplicates,
      v.lost,
      v.stuck,
      v.settleP50Ms,
      v.settleP99Ms,
      v.chainOk ? 'ok' : 'BROKEN',
      JSON.stringify(v.states),
    ].map(String),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  process.stdout.write(`\n${[line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')}\n`);
}
