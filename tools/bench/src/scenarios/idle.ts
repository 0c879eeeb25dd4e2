import { setTimeout as sleep } from 'node:timers/promises';
import { cpuShares, postgresBackendPids, snapshotCpu } from '../cpu/process-cpu';
import type { BenchStack } from '../stack/bench-stack';

export interface IdleRound {
  readonly seconds: number;
  /** Share of one core per process with no traffic at all (PostgreSQL: the backends serving this database). */
  readonly cpu: Record<string, number>;
  /** The services ran under the sampling profiler, which costs a few % of a core itself. */
  readonly profiled: boolean;
}

/** How long the services settle after their start (migrations, first polls) before idle is measured. */
const SETTLE_MS = 5_000;

/** No calls at all: what each process costs just by running (its polls, heartbeats and sweeps). */
export async function idleRound(stack: BenchStack, seconds: number, profiled: boolean): Promise<IdleRound> {
  await sleep(SETTLE_MS);
  const groups: Record<string, number[]> = Object.fromEntries(Object.entries(stack.pids()).map(([name, pid]) => [name, [pid]]));
  groups['postgresql'] = await postgresBackendPids(stack.db.pool, stack.db.name);
  const before = snapshotCpu(groups);
  const started = Date.now();
  await sleep(seconds * 1000);
  const wall = (Date.now() - started) / 1000;
  return { seconds: wall, cpu: cpuShares(before, snapshotCpu(groups), wall), profiled };
}
