/**
 * PostgreSQL's CPU for the event store's two hottest statements, sent unnamed (pg's default: parsed
 * and planned on every call) and prepared (the services' PreparingClient), side by side in one run:
 * each way on a pool of one connection, its backend's CPU read from /proc, blocks interleaved.
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/scripts/prepared-statements.ts
 *
 * Needs the PostgreSQL of the tests on this machine (ONCEPORT_TEST_DATABASE_URL).
 */
import { readFileSync } from 'node:fs';
import { Client, Pool } from 'pg';
import { PostgresEventStore, PreparingClient } from '@onceport/event-store';
import { createTestDatabase, testEvent } from '@onceport/event-store/testing';

const BLOCKS = 6;
const CALLS_PER_BLOCK = 2_000;
const STREAMS = 200;

/** user + system CPU of a process in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function main(): Promise<void> {
  const db = await createTestDatabase();
  const ways = {
    unnamed: new Pool({ connectionString: db.url, max: 1, Client }),
    prepared: new Pool({ connectionString: db.url, max: 1, Client: PreparingClient }),
  };
  const backendOf = async (pool: Pool): Promise<number> =>
    (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0;
  const measured = { read: { unnamed: 0, prepared: 0 }, append: { unnamed: 0, prepared: 0 } };
  try {
    const seeding = new PostgresEventStore(db.pool);
    for (let n = 0; n < STREAMS; n += 1)
      await seeding.append(`seeded-${n}`, [testEvent(), testEvent(), testEvent()], { expectedVersion: 'no_stream' });
    for (let block = 0; block < BLOCKS; block += 1) {
      for (const way of ['unnamed', 'prepared'] as const) {
        const pool = ways[way];
        const store = new PostgresEventStore(pool);
        const pid = await backendOf(pool);
        let before = cpuMsOf(pid);
        for (let n = 0; n < CALLS_PER_BLOCK; n += 1) await store.readStream(`seeded-${n % STREAMS}`);
        measured.read[way] += cpuMsOf(pid) - before;
        before = cpuMsOf(pid);
        for (let n = 0; n < CALLS_PER_BLOCK / 4; n += 1)
          await store.append(`${way}-${block}-${n}`, [testEvent(), testEvent()], { expectedVersion: 'no_stream' });
        measured.append[way] += cpuMsOf(pid) - before;
      }
    }
  } finally {
    await Promise.all(Object.values(ways).map((pool) => pool.end()));
    await db.drop();
  }
  const reads = BLOCKS * CALLS_PER_BLOCK;
  const appends = (BLOCKS * CALLS_PER_BLOCK) / 4;
  const perCall = (ms: number, calls: number): string => `${((ms / calls) * 1000).toFixed(0)} µs`;
  console.log(`PostgreSQL backend CPU per call (${reads} stream reads, ${appends} two-event appends each way):`);
  for (const [statement, calls] of [
    ['read', reads],
    ['append', appends],
  ] as const) {
    const { unnamed, prepared } = measured[statement];
    console.log(
      `  ${statement}: unnamed ${perCall(unnamed, calls)}, prepared ${perCall(prepared, calls)}, unnamed ÷ prepared ${(unnamed / prepared).toFixed(2)}×`,
    );
  }
}

void main();
