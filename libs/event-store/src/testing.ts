import { randomBytes, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { NewEvent } from './event';
import type { EventStore } from './event-store.port';
import { eventStoreMigrations, type SchemaStep } from './migrations';
import { runMigrations } from './orm';
import { PreparingClient } from './prepared-statements';

/** The server tests run against; CI and `tools/dev-services.sh` make sure it is up. */
export const TEST_DATABASE_SERVER_URL = process.env['ONCEPORT_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  readonly url: string;
  readonly pool: Pool;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

/** A fresh, migrated database of its own, so test files never see each other's events. */
export async function createTestDatabase(extraMigrations: readonly SchemaStep[] = []): Promise<TestDatabase> {
  const name = `onceport_test_${randomBytes(6).toString('hex')}`;
  const admin = new Pool({ connectionString: TEST_DATABASE_SERVER_URL, max: 1 });
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_SERVER_URL);
  url.pathname = `/${name}`;
  // The services' client (createPool's), so tests run their queries as the services do: prepared.
  const pool = new Pool({ connectionString: url.toString(), max: 20, Client: PreparingClient });
  let dropping = false;
  // pg-pool's end() can resolve while a client is still closing; the DROP … WITH (FORCE) below then
  // terminates it (57P01) and the pool re-emits that. Expected while dropping; anything else is a real failure.
  pool.on('error', (error) => {
    if (!dropping) throw error;
  });
  await runMigrations(url.toString(), [...eventStoreMigrations, ...extraMigrations]);
  return {
    url: url.toString(),
    pool,
    async drop() {
      dropping = true;
      await pool.end();
      const dropper = new Pool({ connectionString: TEST_DATABASE_SERVER_URL, max: 1 });
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/** A new event with a fresh id, for tests that need events but not a particular schema. */
export function testEvent(type = 'TestHappened', data: Record<string, string | number | boolean | null> = {}): NewEvent {
  return { eventId: randomUUID(), type, schemaVersion: 1, data, metadata: { correlationId: 'test', causationId: 'test' } };
}

export { genericPlansOf } from './testing/generic-plans';
export { waitFor } from './testing/wait-for';
export { holdSubscriptionLead } from './testing/hold-subscription-lead';

/** Records the streams each read of `store` asks for, one entry per round trip; the reads go on as usual. */
export function recordStreamReads(store: Pick<EventStore, 'readStream' | 'readStreams'>): string[][] {
  const reads: string[][] = [];
  const readStreams = store.readStreams.bind(store);
  const readStream = store.readStream.bind(store);
  store.readStreams = (wanted) => {
    reads.push(wanted.map((w) => w.streamId));
    return readStreams(wanted);
  };
  store.readStream = (streamId, fromVersion) => {
    reads.push([streamId]);
    return readStream(streamId, fromVersion);
  };
  return reads;
}

/**
 * A pool that notes the first two words of every statement sent through it, its transactions' included
 * (`BEGIN`, `COMMIT`), one entry per round trip; the statements run on `pool` as usual.
 */
export function recordStatements(pool: Pool): { readonly pool: Pool; readonly statements: string[] } {
  const statements: string[] = [];
  const note = (text: unknown): void => {
    const sql = typeof text === 'string' ? text : ((text as { text?: string } | null)?.text ?? '');
    statements.push(sql.trim().split(/\s+/).slice(0, 2).join(' '));
  };
  const counted = {
    query: (text: unknown, values?: unknown) => {
      note(text);
      return (pool.query as (t: unknown, v?: unknown) => unknown)(text, values);
    },
    connect: async () => {
      const client = await pool.connect();
      return {
        query: (text: unknown, values?: unknown) => {
          note(text);
          return (client.query as (t: unknown, v?: unknown) => unknown).call(client, text, values);
        },
        release: (error?: Error | boolean) => client.release(error),
      };
    },
  };
  return { pool: counted as unknown as Pool, statements };
}
