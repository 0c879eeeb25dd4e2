import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresEventStore } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase, testEvent } from '@onceport/event-store/testing';
import { runOnceport } from '../testing/run-cli-in-process';

/** `onceport audit export` and `audit verify` against a real store, and on files edited by hand. */
describe('onceport audit', () => {
  let db: TestDatabase;
  let dir: string;
  let file: string;
  let lines: string[];

  beforeAll(async () => {
    db = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'onceport-audit-'));
    const store = new PostgresEventStore(db.pool);
    for (const n of [1, 2, 3]) {
      for (const stream of ['alpha', 'beta']) await store.append(stream, [testEvent(`E${n}`, { n, stream })], { expectedVersion: n - 1 });
    }
    file = join(dir, 'clean.jsonl');
    const exported = await runOnceport(['audit', 'export', '--out', file], { DATABASE_URL: db.url });
    expect(exported).toMatchObject({ code: 0, stdout: '' });
    expect(exported.stderr).toMatch(/^exported 6 events of 2 streams to .*clean\.jsonl in [0-9.]+ s; anchor [0-9a-f]{64}\n$/);
    lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  });
  afterAll(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const tampered = (name: string, edit: (lines: string[]) => string[]): string => {
    const path = join(dir, `${name}.jsonl`);
    writeFileSync(path, `${edit([...lines]).join('\n')}\n`);
    return path;
  };
  const indexOf = (stream: string, version: number): number =>
    lines.findIndex((l) => l.includes(`"stream_id":"${stream}","stream_version":${version},`));
  const verifyFile = (path: string, ...extra: string[]) => runOnceport(['audit', 'verify', '--file', path, ...extra], {});

  it('passes a clean export, from the file and from the database', async () => {
    const fromFile = await verifyFile(file);
    expect(fromFile).toMatchObject({ code: 0, stderr: '' });
    expect(fromFile.stdout).toMatch(
      /^ok: 6 events in 2 streams verified from .*clean\.jsonl in [0-9.]+ s \([0-9]+ events\/s\); anchor [0-9a-f]{64}\n$/,
    );
    const anchor = /anchor ([0-9a-f]{64})/.exec(fromFile.stdout)![1]!;
    expect((await verifyFile(file, '--expect-anchor', anchor)).code).toBe(0);
    expect(await verifyFile(file, '--expect-anchor', '0'.repeat(64))).toMatchObject({
      code: 1,
      stdout: expect.stringContaining('anchor_mismatch'),
    });
    const fromDatabase = await runOnceport(['audit', 'verify', '--json'], { DATABASE_URL: db.url });
    expect(fromDatabase.code).toBe(0);
    expect(JSON.parse(fromDatabase.stdout)).toMatchObject({
      ok: true,
      source: 'database',
      events_checked: 6,
      streams_checked: 2,
      first_broken_link: null,
    });
  });

  it('prints progress on stderr when the store is larger than the progress step, from the file and from the database', async () => {
    const progressLines = /^verified [246] events \([0-9,]+ events\/s\)$/;
    for (const run of [
      await verifyFile(file, '--progress-every', '2'),
      await runOnceport(['audit', 'verify', '--progress-every', '2'], { DATABASE_URL: db.url }),
    ]) {
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^ok: 6 events in 2 streams verified/);
      const stderr = run.stderr.trimEnd().split('\n');
      expect(stderr.map((line) => line.replace(/ \(.*\)$/, ''))).toEqual(['verified 2 events', 'verified 4 events', 'verified 6 events']);
      expect(stderr.every((line) => progressLines.test(line))).toBe(true);
    }
    expect(await verifyFile(file, '--progress-every', '2', '--quiet')).toMatchObject({ code: 0, stderr: '' });
    expect(await verifyFile(file, '--progress-every', '0')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--progress-every must be a positive whole number'),
    });
  });

  it('fails on one changed event and names it', async () => {
    const at = indexOf('beta', 2);
    const path = tampered('changed', (l) => {
      l[at] = l[at]!.replace('"n":2', '"n":7');
      return l;
    });
    const run = await verifyFile(path);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      new RegExp(`^FAILED: first broken link: stream beta, version 2 \\(global position \\d+, line ${at + 1}\\): content_changed — `),
    );
  });

  it('fails on one removed event, in the middle of a stream or its newest', async () => {
    const middle = await verifyFile(tampered('removed', (l) => l.filter((_, i) => i !== indexOf('alpha', 2))));
    expect(middle).toMatchObject({ code: 1, stdout: expect.stringContaining('stream alpha, version 3') });
    expect(middle.stdout).toContain('version_gap');
    const newest = await verifyFile(tampered('removed-newest', (l) => l.filter((_, i) => i !== indexOf('beta', 3))));
    expect(newest).toMatchObject({ code: 1, stdout: expect.stringContaining('stream beta, version 3: stream_head_mismatch') });
  });

  it('fails on one inserted event', async () => {
    const run = await verifyFile(
      tampered('inserted', (l) => {
        l.splice(indexOf('alpha', 3), 0, l[indexOf('alpha', 2)]!);
        return l;
      }),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/stream alpha, version 2 .*: (global_position_out_of_order|version_out_of_order)/);
  });

  it('fails on two swapped events, with --json naming the spot', async () => {
    const [a, b] = [indexOf('alpha', 2), indexOf('alpha', 3)];
    const run = await verifyFile(
      tampered('swapped', (l) => {
        [l[a], l[b]] = [l[b]!, l[a]!];
        return l;
      }),
      '--json',
    );
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: false,
      first_broken_link: { stream_id: 'alpha', stream_version: 3, line: a + 1, problem: 'version_gap' },
    });
  });

  it('fails on a tampered database and, with a checkpoint, on its newest event removed', async () => {
    const other = await createTestDatabase();
    try {
      const store = new PostgresEventStore(other.pool);
      await store.append(
        'gamma',
        [1, 2, 3].map((n) => testEvent(`E${n}`, { n })),
        { expectedVersion: 0 },
      );
      const checkpoint = join(dir, 'checkpoint.jsonl');
      expect((await runOnceport(['audit', 'export', '-o', checkpoint, '--quiet'], { DATABASE_URL: other.url })).code).toBe(0);
      const client = await other.pool.connect();
      try {
        await client.query("SET session_replication_role = 'replica'");
        await client.query("DELETE FROM onceport.events WHERE stream_id = 'gamma' AND stream_version = 3");
      } finally {
        client.release(true);
      }
      const blind = await runOnceport(['audit', 'verify', '--database-url', other.url], {});
      expect(blind).toMatchObject({ code: 0, stdout: expect.stringContaining('pass --checkpoint') });
      const checked = await runOnceport(['audit', 'verify', '--database-url', other.url, '--checkpoint', checkpoint], {});
      expect(checked).toMatchObject({ code: 1, stdout: expect.stringContaining('stream gamma, version 3: stream_head_mismatch') });

      const client2 = await other.pool.connect();
      try {
        await client2.query("SET session_replication_role = 'replica'");
        await client2.query(`UPDATE onceport.events SET data = '{"n": 9}' WHERE stream_id = 'gamma' AND stream_version = 1`);
      } finally {
        client2.release(true);
      }
      expect(await runOnceport(['audit', 'verify', '--database-url', other.url], {})).toMatchObject({
        code: 1,
        stdout: expect.stringContaining('stream gamma, version 1 (global position 1): content_changed'),
      });
    } finally {
      await other.drop();
    }
  });

  it('exports to stdout (progress and the closing line on stderr), and an empty store verifies', async () => {
    const toStdout = await runOnceport(['audit', 'export', '--out', '-'], { DATABASE_URL: db.url });
    expect(toStdout.code).toBe(0);
    const streamed = toStdout.stdout.trimEnd().split('\n');
    expect(streamed).toHaveLength(lines.length);
    expect(streamed.slice(1, -1)).toEqual(lines.slice(1, -1));
    expect(toStdout.stderr).toMatch(/^exported 6 events of 2 streams to stdout/);

    const empty = await createTestDatabase();
    try {
      const path = join(dir, 'empty.jsonl');
      expect((await runOnceport(['audit', 'export', '--out', path, '--quiet'], { DATABASE_URL: empty.url })).code).toBe(0);
      expect(await verifyFile(path)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^ok: 0 events in 0 streams/) });
    } finally {
      await empty.drop();
    }
  });

  it('exports a range, and gives usage errors (2) and unreachable-database errors (5) as one line', async () => {
    const range = join(dir, 'range.jsonl');
    expect(
      (
        await runOnceport(['audit', 'export', '--out', range, '--from-position', '3', '--to-position', '4', '--quiet', '--json'], {
          DATABASE_URL: db.url,
        })
      ).stdout,
    ).toContain('"events": 2');
    expect((await verifyFile(range)).code).toBe(0);
    for (const argv of [
      ['audit', 'export'],
      ['audit', 'export', '--out', range, '--from-position', 'x'],
      ['audit', 'verify', '--file', join(dir, 'nope')],
      ['audit', 'verify', '--bogus'],
      ['audit', 'frobnicate'],
    ]) {
      const run = await runOnceport(argv, { DATABASE_URL: db.url });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^onceport: [^\n]+\n$/);
    }
    const unreachable = await runOnceport(['audit', 'verify'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(unreachable).toMatchObject({
      code: 5,
      stderr: expect.stringMatching(/^onceport: cannot use the database at postgres:\/\/postgres@127\.0\.0\.1:1\/none: [^\n]+\n$/),
    });
  });
});
