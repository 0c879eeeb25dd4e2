import { loadavg } from 'node:os';
import { readChainsFromDatabase, verifyChains } from '@onceport/event-store';
import type { NatsServer } from '@onceport/fault-kit';
import { GATEWAY_SERVICES, type Gateway, readExecutionOutcomes } from '@onceport/gateway-harness';
import { remoteTestTarget } from '@onceport/test-target';
import type { Pool } from 'pg';
import type { MachineInfo } from '../report/bench-report';
import { machineInfo } from '../machine-info';
import { freshTarget } from '../scenarios/fresh-target';
import { type BenchPostgres, startBenchPostgres } from '../stack/bench-postgres';
import { AGENT_KEY, type BenchStack, startBenchStack } from '../stack/bench-stack';
import { type Calibration, calibrate } from './calibrate';
import { type Fault, describeFault, nemesisSchedule } from './nemesis';
import { type IntentRecord, openLoop } from './open-loop';
import { type RssTrend, rssTrend, startRssSampler } from './rss-sampler';
import type { SoakOptions } from './soak-options';
import { type SoakVerdict, soakVerdict } from './soak-verdict';

/** What the nemesis did and how long the part took to come back. */
export interface FaultRecord {
  readonly atSeconds: number;
  readonly fault: string;
  /** From the kill until the part answered again (ms). */
  readonly backAfterMs: number | null;
  readonly error: string | null;
}

export interface SoakReport {
  readonly kind: 'soak';
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly machine: MachineInfo;
  readonly options: SoakOptions;
  readonly calibration: Calibration | null;
  readonly ratePerSecond: number;
  readonly loadSeconds: number;
  readonly shed: number;
  readonly faults: readonly FaultRecord[];
  /** Seconds from the end of the load until nothing was left in flight (null: the drain ran out). */
  readonly drainedAfterSeconds: number | null;
  readonly verdict: SoakVerdict;
  readonly chain: { readonly ok: boolean; readonly eventsChecked: number };
  /** The first error of retried or given-up intents, by kind. */
  readonly retryCauses: Record<string, number>;
  readonly rss: readonly RssTrend[];
}

/** Events after which an execution no longer waits on any service (a cheap stand-in for the fold, while draining). */
const SETTLING = ['OutcomeObserved', 'OutcomeSettled', 'ExecutionDenied', 'DispatchFailedBeforeSend'];

export async function runSoak(options: SoakOptions, log: (line: string) => void): Promise<SoakReport> {
  const startedAt = new Date().toISOString();
  const postgres = await startBenchPostgres();
  try {
    if (!postgres.restart)
      throw new Error('the soak restarts PostgreSQL: unset ONCEPORT_BENCH_DATABASE_URL so it runs on a private cluster');
    const stack = await startBenchStack({ label: 'soak', serverUrl: postgres.url, replicas: options.replicas });
    try {
      return await soakOn(stack, postgres, startedAt, options, log);
    } finally {
      await stack.stop();
    }
  } finally {
    await postgres.stop();
  }
}

async function soakOn(
  stack: BenchStack,
  postgres: BenchPostgres,
  startedAt: string,
  options: SoakOptions,
  log: (line: string) => void,
): Promise<SoakReport> {
  const machine = await machineInfo(stack.db.pool);
  const intakeUrls = (): string[] => stack.gateway.urls('intake');
  let calibration: Calibration | null = null;
  if (options.ratePerSecond === null) {
    calibration = await calibrate(intakeUrls(), AGENT_KEY, options.calibrateCallers, options.calibrateSeconds);
    log(
      `calibrated: ${calibration.executionsPerSecond.toFixed(1)} executions/s with ${calibration.callers} callers (${calibration.failures} failures)`,
    );
  }
  const ratePerSecond = options.ratePerSecond ?? Math.max(1, (calibration?.executionsPerSecond ?? 0) * options.loadShare);
  await freshTarget(stack.target.url);
  const loadSeconds = options.minutes * 60;
  const schedule = nemesisSchedule(loadSeconds, options.faultEverySeconds, options.replicas);
  log(`soak: ${ratePerSecond.toFixed(1)} calls/s for ${loadSeconds} s, ${schedule.length} faults`);
  const rss = startRssSampler(() => processPids(stack), 5_000);
  const started = Date.now();
  const [load, faults] = await Promise.all([
    openLoop({
      ratePerSecond,
      seconds: loadSeconds,
      intakeUrls,
      apiKey: AGENT_KEY,
      prefix: `soak-${process.pid % 10_000}`,
      giveUpMs: 120_000,
      maxInFlight: Math.max(500, Math.ceil(ratePerSecond * 60)),
    }),
    (async () => {
      const done: FaultRecord[] = [];
      for (const { atSeconds, fault } of schedule) {
        await sleep(started + atSeconds * 1000 - Date.now());
        const record = await inflict(fault, atSeconds, stack, postgres, options.downSeconds);
        log(`t+${atSeconds}s ${record.fault}: ${record.error ?? `back after ${record.backAfterMs} ms`}`);
        done.push(record);
      }
      return done;
    })(),
  ]);
  const rssSeries = rss.stop();
  log(`load done: ${load.records.length} intents, ${load.shed} shed; draining`);
  const drainedAfterSeconds = await drain(stack.db.pool, options.drainSeconds);
  const outcomes = await readExecutionOutcomes(stack.db.pool);
  const effects = await remoteTestTarget(stack.target.url).effects({ route: 'deployments' });
  const verdict = soakVerdict(
    load.records,
    new Map([...outcomes].map(([id, o]) => [id, { status: o.state.status, acceptedAt: o.acceptedAt, settledAt: o.settledAt }])),
    effects.map((e) => ({ project: e.params['project'] ?? '', idempotencyKey: e.idempotencyKey })),
  );
  const chain = await verifyChains(readChainsFromDatabase(stack.db.pool));
  return {
    kind: 'soak',
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: { ...machine, loadAverageEnd: loadavg(), note: options.note },
    options,
    calibration,
    ratePerSecond,
    loadSeconds,
    shed: load.shed,
    faults,
    drainedAfterSeconds,
    verdict,
    chain: { ok: chain.firstBrokenLink === null, eventsChecked: chain.eventsChecked },
    retryCauses: retryCauses(load.records),
    rss: rssSeries.map((series) => rssTrend(series, 60, 120)),
  };
}

/** Every process whose memory is watched: each service replica, nats-server, the target and the load generator. */
function processPids(stack: BenchStack): Record<string, number | null> {
  const pids: Record<string, number | null> = { 'nats-server': stack.nats.pid, target: stack.target.pid, 'load generator': process.pid };
  for (const service of GATEWAY_SERVICES)
    for (const [replica] of stack.gateway.urls(service).entries()) pids[`${service} #${replica}`] = pidOf(stack.gateway, service, replica);
  return pids;
}

function pidOf(gateway: Gateway, service: (typeof GATEWAY_SERVICES)[number], replica: number): number | null {
  try {
    return gateway.process(service, replica).pid;
  } catch {
    return null;
  }
}

async function inflict(
  fault: Fault,
  atSeconds: number,
  stack: BenchStack,
  postgres: BenchPostgres,
  downSeconds: number,
): Promise<FaultRecord> {
  const t0 = Date.now();
  const record = (error: string | null): FaultRecord => ({
    atSeconds,
    fault: describeFault(fault),
    backAfterMs: error ? null : Date.now() - t0,
    error,
  });
  try {
    switch (fault.kind) {
      case 'kill':
        await stack.gateway.kill(fault.service, fault.replica, 'SIGKILL');
        await sleep(downSeconds * 1000);
        await startAgain(() => stack.gateway.start(fault.service, fault.replica));
        break;
      case 'nats':
        await stack.nats.kill('SIGKILL');
        await sleep(downSeconds * 1000);
        await startAgain(() => restartNats(stack.nats));
        break;
      case 'postgres':
        // pg_ctl stop -m immediate: every backend aborted, no checkpoint; the start runs crash recovery.
        await postgres.restart?.('immediate');
        break;
    }
    return record(null);
  } catch (error) {
    return record(error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300));
  }
}

/** A start can fail while another part is down (a service needs PostgreSQL to migrate): try again a few times. */
async function startAgain(start: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await start();
      return;
    } catch (error) {
      if (attempt >= 5) throw error;
      await sleep(2_000);
    }
  }
}

function restartNats(nats: NatsServer): Promise<void> {
  return nats.restart();
}

/** Waits until no execution waits on a service any more, or `seconds` pass; returns how long it took. */
async function drain(pool: Pool, seconds: number): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started < seconds * 1000) {
    const { rows } = await pool
      .query<{ waiting: string }>(
        `SELECT count(*) AS waiting FROM (SELECT stream_id FROM onceport.events WHERE stream_id LIKE 'execution-%'
           GROUP BY stream_id
           HAVING NOT bool_or(event_type = ANY($1) AND coalesce(data->>'settlement', '') <> 'not_applied')) unsettled`,
        [SETTLING],
      )
      .catch(() => ({ rows: [{ waiting: '-1' }] }));
    if (rows[0]?.waiting === '0') return (Date.now() - started) / 1000;
    await sleep(2_000);
  }
  return null;
}

function retryCauses(records: readonly IntentRecord[]): Record<string, number> {
  const causes: Record<string, number> = {};
  for (const record of records) {
    if (!record.firstError) continue;
    // "SocketError: other side closed" and "HTTP 503: {…}" → the part before the first detail
    const kind = record.firstError
      .replace(/^(HTTP \d+).*/s, '$1')
      .replace(/^([A-Za-z]+Error: [^(:{\d]*).*/s, '$1')
      .trim()
      .slice(0, 80);
    causes[kind] = (causes[kind] ?? 0) + 1;
  }
  return causes;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
