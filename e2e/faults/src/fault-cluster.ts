import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { executionIdOfStream, parseEvent } from '@onceport/contracts';
import { type ExecutionState, foldEvents } from '@onceport/domain';
import { readChainsFromDatabase, verifyChains } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { TestNatsServer } from '@onceport/messaging/testing';
import { type AppProcess, type GatewayFixture, startAppProcess, writeGatewayFixture } from '@onceport/runtime/testing';
import { type TestTarget, startTestTarget } from '@onceport/test-target';

export type AppName = 'intake' | 'authorization' | 'dispatcher' | 'reconciler';
const APPS: readonly AppName[] = ['authorization', 'dispatcher', 'reconciler', 'intake'];
export const AGENT_KEY = 'fault-agent-key-1';
const UNSETTLED = new Set(['accepted', 'authorized', 'dispatched', 'dispatched_unknown']);

/** One operation as a client saw it: Jepsen-style ok / failed / unknown, with the execution it named. */
export interface Operation {
  readonly intent: string;
  readonly outcome: 'ok' | 'failed' | 'unknown';
  readonly executionId: string | null;
  readonly state: string | null;
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

/** Four services as processes over a private NATS, a fresh database and a real target; parts die on demand. */
export class FaultCluster {
  readonly apps = new Map<AppName, AppProcess>();
  readonly history: Operation[] = [];

  private constructor(
    readonly db: TestDatabase,
    readonly nats: TestNatsServer,
    readonly target: TestTarget,
    readonly fixture: GatewayFixture,
  ) {}

  static async start(faults: Partial<Record<AppName, string>> = {}, database?: TestDatabase): Promise<FaultCluster> {
    const [db, nats, target] = await Promise.all([database ?? createTestDatabase(), TestNatsServer.start(), startTestTarget()]);
    const fixture = writeGatewayFixture(target.url, [{ id: 'agent:fault', key: AGENT_KEY, tools: '*' }], db.url, nats.url);
    const extra = readFileSync(join(__dirname, 'fault-contracts.yaml'), 'utf8').replaceAll('http://fault-target', target.url);
    writeFileSync(join(fixture.contractsDir, 'faults.yaml'), extra);
    const cluster = new FaultCluster(db, nats, target, fixture);
    await Promise.all(APPS.map((app) => cluster.startApp(app, faults[app])));
    return cluster;
  }

  env(faultPoint?: string): Record<string, string> {
    return this.fixture.env({
      ONCEPORT_CREDENTIAL_DEPLOY_API: 'fault-secret',
      ONCEPORT_ANSWER_WAIT_MS: '3000',
      ONCEPORT_DISPATCH_LEASE: '1500',
      ONCEPORT_RECONCILE_SWEEP_MS: '250',
      ONCEPORT_REDELIVER_AFTER_MS: '2000',
      ONCEPORT_PROBE_BACKOFF_MS: '100',
      ONCEPORT_DISPATCH_RETRY_BACKOFF: '100',
      ...(faultPoint ? { ONCEPORT_FAULT_POINT: faultPoint } : {}),
    });
  }

  async startApp(app: AppName, faultPoint?: string): Promise<AppProcess> {
    const process = await startAppProcess(app, this.env(faultPoint));
    this.apps.set(app, process);
    return process;
  }

  /** Starts the app again without a fault point (after it died at one, or was killed). */
  async restart(app: AppName): Promise<void> {
    await this.apps.get(app)?.kill('SIGKILL');
    await this.startApp(app);
  }

  async waitForExit(app: AppName, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!(await alive(this.apps.get(app)))) return;
      await sleep(50);
    }
    throw new Error(`${app} did not die at its fault point`);
  }

  /** A REST call recorded in the history; a dropped connection or a 5xx is an unknown outcome. */
  async call(tool: string, args: Record<string, unknown>, intent: string, intake = this.apps.get('intake')): Promise<Operation> {
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

  async executions(): Promise<Map<string, { state: ExecutionState; acceptedAt: number; settledAt: number | null }>> {
    const rows = await this.db.pool.query(
      `SELECT event_id, stream_id, event_type, schema_version, data, metadata, recorded_at FROM onceport.events WHERE stream_id LIKE 'execution-%' ORDER BY stream_id, stream_version`,
    );
    const byStream = new Map<string, typeof rows.rows>();
    for (const row of rows.rows) byStream.set(row.stream_id, [...(byStream.get(row.stream_id) ?? []), row]);
    const result = new Map<string, { state: ExecutionState; acceptedAt: number; settledAt: number | null }>();
    for (const [stream, events] of byStream) {
      const parsed = events.map((e) => parseEvent({ type: e.event_type, schemaVersion: e.schema_version, data: e.data, metadata: { ...e.metadata, eventId: e.event_id } }));
      const settledRow = events.find((e) => ['OutcomeObserved', 'OutcomeSettled', 'ExecutionDenied', 'DispatchFailedBeforeSend'].includes(e.event_type) && !(e.event_type === 'OutcomeSettled' && e.data.settlement === 'not_applied'));
      result.set(executionIdOfStream(stream) ?? stream, {
        state: foldEvents(parsed),
        acceptedAt: (events[0]?.recorded_at as Date).getTime(),
        settledAt: settledRow ? (settledRow.recorded_at as Date).getTime() : null,
      });
    }
    return result;
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
    await Promise.all([...this.apps.values()].map((app) => app.kill('SIGKILL')));
    await Promise.all([this.target.stop(), this.nats.stop()]);
    await this.db.drop();
  }
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

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function printTable(verdicts: readonly Verdict[]): void {
  const header = ['scenario', 'executions', 'effects', 'duplicates', 'lost', 'stuck', 'settle p50 ms', 'settle p99 ms', 'chain', 'final states'];
  const rows = verdicts.map((v) => [v.scenario, v.executions, v.effects, v.duplicates, v.lost, v.stuck, v.settleP50Ms, v.settleP99Ms, v.chainOk ? 'ok' : 'BROKEN', JSON.stringify(v.states)].map(String));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  process.stdout.write(`\n${[line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')}\n`);
}
