import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { PostgresCluster, type ShutdownMode } from '@onceport/fault-kit';

export interface BenchPostgres {
  /** Server URL (its `postgres` database). */
  readonly url: string;
  readonly description: string;
  /** Stops and starts it again (the private cluster only; null for a given server, which is not ours to restart). */
  readonly restart: ((mode: ShutdownMode) => Promise<void>) | null;
  stop(): Promise<void>;
}

/**
 * The PostgreSQL the benchmark runs on. By default a private cluster (the machine's own PostgreSQL
 * binaries, fsync and synchronous_commit on as shipped): 256 agents need more connections than a
 * shared server's 100 leave free, and other users' open transactions would hold back our tails
 * (pg_snapshot_xmin is cluster-wide). `ONCEPORT_BENCH_DATABASE_URL` points it at a server instead.
 */
export async function startBenchPostgres(): Promise<BenchPostgres> {
  const given = process.env['ONCEPORT_BENCH_DATABASE_URL'];
  if (given) return { url: given, description: `the server at ${new URL(given).host}`, restart: null, stop: async () => undefined };
  const cluster = await PostgresCluster.create();
  appendFileSync(
    join(cluster.dataDir, 'postgresql.conf'),
    '\n# onceport bench\nmax_connections = 400\nshared_buffers = 1GB\nmax_wal_size = 8GB\n' +
      // Counts statements per execution (the cost model); its overhead is a hash lookup per statement.
      "shared_preload_libraries = 'pg_stat_statements'\npg_stat_statements.track = top\n",
  );
  await cluster.restart();
  return {
    url: cluster.url(),
    description:
      'a private cluster (max_connections 400, shared_buffers 1GB, max_wal_size 8GB, pg_stat_statements; fsync and synchronous_commit on)',
    restart: (mode) => cluster.restart(mode),
    stop: () => cluster.destroy(),
  };
}
