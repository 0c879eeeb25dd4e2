// Measures `onceport audit verify` on a large store:
//   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/cli/scripts/measure-verify.ts [events=1000000] [events-per-stream=10]
// Seeds a scratch database (dropped at the end) through the real chain trigger, then runs the CLI as
// an operator would: verify from the database, export to a file, verify the file. Prints wall times.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { eventStoreMigrations, runMigrations } from '@onceport/event-store';

const SERVER = process.env['ONCEPORT_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BIN = join(__dirname, '../bin/onceport.js');

/**
 * One version of every stream per statement, so each row's predecessor is already there for the
 * chain trigger. The content hash is computed in SQL over the same canonical JSON the store hashes
 * in TypeScript (keys sorted, no whitespace, recordedAt as JavaScript's toISOString), so the seeded
 * events verify exactly like appended ones.
 */
const SEED_VERSION = `
WITH rows AS (
  SELECT gen_random_uuid()::text AS event_id, 's-' || lpad(s::text, 7, '0') AS stream_id, $1::int AS v,
         timestamptz '2026-11-30T00:00:00Z' + make_interval(secs => (($1::int - 1) * $2::int + s) / 1000.0) AS recorded_at, s
  FROM generate_series(1, $2::int) AS s
)
INSERT INTO onceport.events (event_id, stream_id, stream_version, event_type, schema_version, data, metadata, recorded_at, content_hash)
SELECT event_id::uuid, stream_id, v, 'Seeded', 1, jsonb_build_object('n', s), '{"seed":true}'::jsonb, recorded_at,
       sha256(convert_to('{"data":{"n":' || s || '},"eventId":"' || event_id || '","metadata":{"seed":true},"recordedAt":"'
         || to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","schemaVersion":1,"streamId":"' || stream_id
         || '","streamVersion":' || v || ',"type":"Seeded"}', 'UTF8'))
FROM rows ORDER BY s`;

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? 1_000_000);
  const perStream = Number(process.argv[3] ?? 10);
  const streams = Math.ceil(total / perStream);
  const name = `onceport_verify_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Pool({ connectionString: SERVER, max: 1 });
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  const pool = new Pool({ connectionString: url.toString(), max: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'onceport-verify-bench-'));
  try {
    await runMigrations(url.toString(), eventStoreMigrations);
    const seedStart = Date.now();
    for (let v = 1; v <= perStream; v++) {
      await pool.query(SEED_VERSION, [v, streams]);
      process.stderr.write(
        `seeded version ${v} of ${perStream} (${(v * streams).toLocaleString('en-US')} events, ${((Date.now() - seedStart) / 1000).toFixed(0)} s)\n`,
      );
    }
    await pool.query('ANALYZE onceport.events');
    const events = Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM onceport.events')).rows[0]?.n);
    const file = join(dir, 'export.jsonl');
    const runs = [
      { what: 'audit verify (database)', args: ['audit', 'verify', '--database-url', url.toString()] },
      { what: 'audit export', args: ['audit', 'export', '--database-url', url.toString(), '--out', file] },
      { what: 'audit verify --file', args: ['audit', 'verify', '--file', file] },
    ];
    const results = runs.map(({ what, args }) => ({ what, ...timed(args) }));
    console.log(
      `\n${events.toLocaleString('en-US')} events in ${streams.toLocaleString('en-US')} streams; export file ${(statSync(file).size / 1e6).toFixed(0)} MB`,
    );
    for (const r of results)
      console.log(
        `${r.what.padEnd(26)} ${r.seconds.toFixed(1).padStart(6)} s  ${Math.round(events / r.seconds)
          .toLocaleString('en-US')
          .padStart(9)} events/s  exit ${r.status}`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

function timed(args: string[]): { seconds: number; status: number | null } {
  const start = process.hrtime.bigint();
  // Progress lines go to this terminal; the CLI starts the way `npx onceport` starts it.
  const run = spawnSync(process.execPath, [BIN, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, status: run.status };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
