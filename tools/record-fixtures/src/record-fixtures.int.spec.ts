// The committed fixtures must stay what the producers write: the recorder runs (as `main.ts` does,
// real PostgreSQL) into a temp dir, and each file it writes must validate and hold the same
// (type, schema version) pairs as the committed file of the same name.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEvent, parseRunEvent, parseSessionEvent, parseVaultEvent } from '@onceport/contracts';
import { COMMITTED_FIXTURES } from './record-fixtures';

const ROOT = join(__dirname, '../../..');
interface Event {
  readonly type: string;
  readonly schemaVersion: number;
}
const eventsOf = (file: string): Event[] => {
  const value = JSON.parse(readFileSync(file, 'utf8')) as Event[] | { events: Event[] };
  return Array.isArray(value) ? value : value.events;
};
const pairsOf = (events: readonly Event[]): string[] => [...new Set(events.map((e) => `${e.type} v${e.schemaVersion}`))].sort();
/** The contracts' own parser for each fixture directory (what the consumers read with). */
const PARSERS: Readonly<Record<string, (raw: unknown) => unknown>> = {
  histories: parseEvent,
  vault: parseVaultEvent,
  sessions: parseSessionEvent,
  runs: parseRunEvent,
};

describe('record-fixtures (real PostgreSQL)', () => {
  let out: string;
  let written: string[];

  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'recorded-fixtures-'));
    const stdout = execFileSync(process.execPath, ['-r', '@swc-node/register', 'tools/record-fixtures/src/main.ts', out], {
      cwd: ROOT,
      env: { ...process.env, SWC_NODE_PROJECT: 'tsconfig.base.json' },
      encoding: 'utf8',
    });
    written = stdout.trim().split('\n');
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('records the vault, session and producer-written execution fixtures', () => {
    expect(written.sort()).toEqual([
      'histories/approval-rejected.json',
      'histories/completed-then-reverted.json',
      'histories/run-attempt-2-ledger-hit.json',
      'histories/undelivered-correlation-expired.json',
      'runs/opened-then-forced-replay.json',
      'sessions/granted-automatically.json',
      'sessions/granted-by-a-human.json',
      'vault/locked-then-unlocked.json',
    ]);
  });

  it('writes events that validate against the shared schemas', () => {
    for (const file of written) {
      const parse = PARSERS[file.split('/')[0] ?? ''];
      if (!parse) throw new Error(`no parser for ${file}`);
      for (const event of eventsOf(join(out, file)) as unknown as (Event & { metadata: { eventId: string } })[])
        expect(() => parse(event)).not.toThrow();
    }
  });

  it('writes the same (type, schema version) pairs as the committed fixture of the same name', () => {
    const drift = written.filter(
      (file) => pairsOf(eventsOf(join(out, file))).join() !== pairsOf(eventsOf(join(COMMITTED_FIXTURES, file))).join(),
    );
    expect(drift).toEqual([]);
  });
});
