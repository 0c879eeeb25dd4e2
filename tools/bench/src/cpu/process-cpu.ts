import { readFileSync } from 'node:fs';
import type { Pool } from 'pg';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds (user + system) a process has used so far, or null once it is gone. */
export function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** The PostgreSQL backends serving one database (the server is shared; only these are ours). */
export async function postgresBackendPids(pool: Pool, database: string): Promise<number[]> {
  const result = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
  return result.rows.map((row) => row.pid);
}

export type CpuSnapshot = ReadonlyMap<string, number>;

/** CPU seconds per named process group (a group is summed over its pids). */
export function snapshotCpu(groups: Readonly<Record<string, readonly number[]>>): CpuSnapshot {
  const snapshot = new Map<string, number>();
  for (const [name, pids] of Object.entries(groups)) {
    for (const pid of pids) {
      const seconds = cpuSecondsOf(pid);
      if (seconds !== null) snapshot.set(`${name}:${pid}`, seconds);
    }
  }
  return snapshot;
}

/** Share of one core each group used between two snapshots (1.0 = one core busy all the time). */
export function cpuShares(before: CpuSnapshot, after: CpuSnapshot, wallSeconds: number): Record<string, number> {
  const shares: Record<string, number> = {};
  for (const [key, end] of after) {
    const start = before.get(key);
    if (start === undefined) continue; // a backend that appeared mid-window: its start is unknown
    const name = key.slice(0, key.lastIndexOf(':'));
    shares[name] = (shares[name] ?? 0) + (end - start) / wallSeconds;
  }
  return shares;
}

/** Busy and total jiffies of the whole machine so far (all cores), from /proc/stat. */
export function machineJiffies(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((sum, v) => sum + v, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0); // idle + iowait
  return { busy: total - idle, total };
}

/** Cores the whole machine kept busy between two readings (everyone's work, not just ours). */
export function machineBusyCores(before: { busy: number; total: number }, after: { busy: number; total: number }, cores: number): number {
  const total = after.total - before.total;
  return total <= 0 ? Number.NaN : ((after.busy - before.busy) / total) * cores;
}
