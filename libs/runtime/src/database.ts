import { eventStoreMigrations, type Migration, runMigrations } from '@onceport/event-store';
import { executionMatchesMigration } from '@onceport/read-models';
import { Pool } from 'pg';
import { resultStoreMigration } from './results/result-store';

/** Every schema step Onceport owns, in order; safe to run from every replica on every start. */
export const allMigrations: readonly Migration[] = [...eventStoreMigrations, executionMatchesMigration, resultStoreMigration];

export function createPool(databaseUrl: string, max = 20): Pool {
  const pool = new Pool({ connectionString: databaseUrl, max });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

export function migrate(pool: Pool, extra: readonly Migration[] = []): Promise<string[]> {
  return runMigrations(pool, [...allMigrations, ...extra]);
}
