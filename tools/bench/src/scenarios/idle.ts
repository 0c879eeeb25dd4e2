import { setTimeout as sleep } from 'node:timers/promises';
import { cpuShares, postgresBackendPids, snapshotCpu } from '../cpu/process-cpu';
import type { BenchStack } from '../stack/bench-stack';

export interface IdleRound {
  readonly seconds: number;
  /** Share of one core per process with no traffic at all (PostgreSQL: the backends serving this database). */
  readonly cpu: Record<string, number>;
  /** The services ran under the sampling profiler, which costs a few % of a core itself. */
  readonly profiled: boolean;
  /** How long after their start the services took to settle, and whether they did before the cap. */
  readonly settle: { readonly seconds: number; readonly settled: boolean; readonly belowShare: number };
}

/** A service is settled when its CPU over one window stays below this share of a core (the profiler alone costs a few %). */
const settledShare = (profiled: boolean): number => (profiled ? 0.06 : 0.02);
const SETTLE_WINDOW_MS = 5_000;
/**
 * V8 shrinks the heap a start left behind with a few full collections once the process has gone quiet
 * (its memory reducer, 8 s apart): measured on every service, one burst of 4–5 % of a core 20–40 s after
 * the start, then 0.3–1.2 % for as long as we watched (minutes). A quiet first window says nothing yet.
 */
const SETTLE_AT_LEAST_MS = 60_000;
/** Settling gives up after this long and measures anyway (the report says so). */
const SETTLE_CAP_MS = 150_000;

/**
 * No calls at all: what each process costs just by running (its polls, heartbeats and sweeps).
 * A process that has just started is not idle yet (its first polls, and the heap its start left
 * behind): the window starts a minute after the stack is up, once every service has spent a whole
 * settle window below the share.
 */
export async function idleRound(stack: BenchStack, seconds: number, profiled: boolean): Promise<IdleRound> {
  const groups = async (): Promise<Record<string, number[]>> => ({
    ...Object.fromEntries(Object.entries(stack.pids()).map(([name, pid]) => [name, [pid]])),
    postgresql: await postgresBackendPids(stack.db.pool, stack.db.name),
  });
  const settle = await waitUntilSettled(stack, settledShare(profiled));
  const measured = await groups();
  const before = snapshotCpu(measured);
  const started = Date.now();
  await sleep(seconds * 1000);
  const wall = (Date.now() - started) / 1000;
  return { seconds: wall, cpu: cpuShares(before, snapshotCpu(measured), wall), profiled, settle };
}

async function waitUntilSettled(stack: BenchStack, settledBelow: number): Promise<IdleRound['settle']> {
  const services = Object.fromEntries(Object.entries(stack.pids()).map(([name, pid]) => [name, [pid]]));
  const started = Date.now();
  while (Date.now() - started < SETTLE_CAP_MS) {
    const before = snapshotCpu(services);
    const windowStarted = Date.now();
    await sleep(SETTLE_WINDOW_MS);
    const shares = cpuShares(before, snapshotCpu(services), (Date.now() - windowStarted) / 1000);
    if (Date.now() - started >= SETTLE_AT_LEAST_MS && Object.values(shares).every((share) => share < settledBelow)) {
      return { seconds: (Date.now() - started) / 1000, settled: true, belowShare: settledBelow };
    }
  }
  return { seconds: (Date.now() - started) / 1000, settled: false, belowShare: settledBelow };
}
