import { type MigrationOptions, type SchemaStep, eventStoreMigrations, runMigrations } from '@onceport/event-store';
import { messagingMigrations } from '@onceport/messaging';
import { ExecutionMatchesIntentDigestMigration, ExecutionMatchesMigration } from '@onceport/read-models';
import { Pool } from 'pg';
import { ResultStoreMigration } from './results/result-store';

/** Every schema step Onceport owns, in order; safe to run from every replica on every start. */
export const allMigrations: readonly SchemaStep[] = [
  ...eventStoreMigrations,
  ...messagingMigrations,
  ExecutionMatchesMigration,
  ExecutionMatchesIntentDigestMigration,
  ResultStoreMigration,
];

export function createPool(databaseUrl: string, max = 20): Pool {
  const pool = new Pool({ connectionString: databaseUrl, max });
  // A server restart kills every connection. An idle pooled client reports it on the pool, a
  // checked-out one between two statements on itself: neither may crash the process. The query in
  // flight still fails (and is retried by its caller), and the pool opens fresh connections.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** `options.serviceRole`: grant the services' role what it needs (run as the owner: the migrate-only step). */
export function migrate(databaseUrl: string, extra: readonly SchemaStep[] = [], options: MigrationOptions = {}): Promise<string[]> {
  return runMigrations(databaseUrl, [...allMigrations, ...extra], options);
}
