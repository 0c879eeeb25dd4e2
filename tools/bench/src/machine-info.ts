import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import type { Pool } from 'pg';
const NATS_SERVER_BINARY = process.env['NATS_SERVER_BIN'] ?? '/usr/sbin/nats-server';

/** What the figures came from: the README quotes them with this. */
export async function machineInfo(
  pool: Pool,
): Promise<{ cpus: number; cpuModel: string; memoryGb: number; node: string; postgres: string; nats: string; loadAverageStart: number[] }> {
  const pg = await pool.query<{ version: string }>('SELECT version()');
  let nats = 'unknown';
  try {
    nats = execFileSync(NATS_SERVER_BINARY, ['--version'], { encoding: 'utf8' })
      .trim()
      .replace(/^nats-server:\s*/, '');
  } catch {
    nats = 'unknown (nats-server --version failed)';
  }
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGb: totalmem() / 1024 ** 3,
    node: process.versions.node,
    postgres: (pg.rows[0]?.version ?? 'PostgreSQL ?').split(' on ')[0] ?? 'PostgreSQL ?',
    nats,
    loadAverageStart: loadavg(),
  };
}
