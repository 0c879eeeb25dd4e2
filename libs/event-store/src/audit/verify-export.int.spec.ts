import { chainHash, contentHash } from '../hash-chain';
import { PostgresEventStore } from '../postgres-event-store';
import { type TestDatabase, createTestDatabase, testEvent } from '../testing';
import { verifyCheckpoint } from './verify-checkpoint';
import { verifyExport } from './verify-export';
import { exportLines } from './write-export';

/** Exports a real store and tampers with the file the way someone editing it by hand would. */
describe('audit export and its offline verification (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let clean: string[];

  beforeAll(async () => {
    db = await createTestDatabase();
    store = new PostgresEventStore(db.pool);
    // Interleaved appends, so the export's global order mixes streams.
    for (const n of [1, 2, 3, 4]) {
      for (const stream of ['a', 'b', 'c']) await store.append(stream, [testEvent(`E${n}`, { n, stream })], { expectedVersion: n - 1 });
    }
    clean = await collect(exportLines(db.pool, { fromPosition: null, toPosition: null }));
  });
  afterAll(() => db.drop());

  const collect = async (lines: AsyncIterable<string>): Promise<string[]> => {
    const out: string[] = [];
    for await (const line of lines) out.push(line);
    return out;
  };
  /** Line index (0 = header) of stream's version. */
  const lineOf = (lines: string[], stream: string, version: number): number =>
    lines.findIndex((line) => line.includes(`"stream_id":"${stream}","stream_version":${version},`));
  const edit = (lines: string[], index: number, change: (event: Record<string, unknown>) => void): string[] => {
    const copy = [...lines];
    const event = JSON.parse(copy[index]!) as Record<string, unknown>;
    change(event);
    copy[index] = JSON.stringify(event);
    return copy;
  };

  it('passes a clean export and reports its anchor', async () => {
    expect(clean).toHaveLength(1 + 12 + 1);
    const report = await verifyExport(clean);
    expect(report).toMatchObject({ eventsChecked: 12, streamsChecked: 3, firstBrokenLink: null });
    expect(report.anchor).toMatch(/^[0-9a-f]{64}$/);
    expect((await verifyExport(clean, { expectAnchor: report.anchor! })).firstBrokenLink).toBeNull();
    expect((await verifyExport(clean, { expectAnchor: 'f'.repeat(64) })).firstBrokenLink).toMatchObject({ problem: 'anchor_mismatch' });
  });

  it('names one changed event', async () => {
    const index = lineOf(clean, 'b', 2);
    const tampered = edit(clean, index, (event) => ((event['data'] as Record<string, unknown>)['n'] = 99));
    expect((await verifyExport(tampered)).firstBrokenLink).toMatchObject({
      streamId: 'b',
      streamVersion: 2,
      problem: 'content_changed',
      line: index + 1,
    });
  });

  it('names one removed event in the middle of a stream', async () => {
    const tampered = clean.filter((_, i) => i !== lineOf(clean, 'b', 2));
    expect((await verifyExport(tampered)).firstBrokenLink).toMatchObject({ streamId: 'b', streamVersion: 3, problem: 'version_gap' });
  });

  it("names a stream's removed newest event, which its chain alone cannot show", async () => {
    const tampered = clean.filter((_, i) => i !== lineOf(clean, 'c', 4));
    expect((await verifyExport(tampered)).firstBrokenLink).toMatchObject({
      streamId: 'c',
      streamVersion: 4,
      problem: 'stream_head_mismatch',
    });
  });

  it('names an inserted event, even a forged one whose own hashes are right', async () => {
    const duplicated = [...clean];
    duplicated.splice(lineOf(clean, 'a', 3), 0, clean[lineOf(clean, 'a', 2)]!);
    expect((await verifyExport(duplicated)).firstBrokenLink).toMatchObject({ streamId: 'a', problem: 'global_position_out_of_order' });

    // A forged newest event for stream a, chained correctly onto version 4 and placed last.
    const head = JSON.parse(clean[lineOf(clean, 'a', 4)]!) as Record<string, string>;
    const forgedContent = {
      eventId: '7b0c5f7e-0000-4000-8000-000000000001',
      streamId: 'a',
      streamVersion: 5,
      type: 'E5',
      schemaVersion: 1,
      data: { n: 5 },
      metadata: {},
      recordedAt: new Date(),
    };
    const content = contentHash(forgedContent);
    const previous = Buffer.from(head['chain_hash']!, 'hex');
    const forged = JSON.stringify({
      global_position: '999',
      event_id: forgedContent.eventId,
      stream_id: 'a',
      stream_version: 5,
      type: 'E5',
      schema_version: 1,
      data: { n: 5 },
      metadata: {},
      recorded_at: forgedContent.recordedAt.toISOString(),
      content_hash: content.toString('hex'),
      prev_hash: previous.toString('hex'),
      chain_hash: chainHash(previous, content).toString('hex'),
    });
    const appended = [...clean.slice(0, -1), forged, clean[clean.length - 1]!];
    expect((await verifyExport(appended)).firstBrokenLink).toMatchObject({
      streamId: 'a',
      streamVersion: 5,
      problem: 'stream_head_mismatch',
    });
  });

  it('names two swapped events of one stream, and two swapped lines of different streams', async () => {
    const [two, three] = [lineOf(clean, 'a', 2), lineOf(clean, 'a', 3)];
    const swapped = [...clean];
    [swapped[two], swapped[three]] = [clean[three]!, clean[two]!];
    expect((await verifyExport(swapped)).firstBrokenLink).toMatchObject({
      streamId: 'a',
      streamVersion: 3,
      problem: 'version_gap',
      line: two + 1,
    });

    // Swapped contents but kept positions and versions: the hashes no longer match the fields.
    const relabelled = edit(
      edit(clean, two, (e) => (e['data'] = JSON.parse(clean[three]!).data)),
      three,
      (e) => (e['data'] = JSON.parse(clean[two]!).data),
    );
    expect((await verifyExport(relabelled)).firstBrokenLink).toMatchObject({ streamId: 'a', streamVersion: 2, problem: 'content_changed' });

    const acrossStreams = [...clean];
    [acrossStreams[1], acrossStreams[2]] = [clean[2]!, clean[1]!];
    expect((await verifyExport(acrossStreams)).firstBrokenLink).toMatchObject({ problem: 'global_position_out_of_order', line: 3 });
  });

  it('names a file cut short, a stream dropped whole, and a malformed line', async () => {
    expect((await verifyExport(clean.slice(0, -1))).firstBrokenLink).toMatchObject({ problem: 'summary_missing' });
    const withoutB = clean.filter((line) => !line.includes('"stream_id":"b"'));
    expect((await verifyExport(withoutB)).firstBrokenLink).toMatchObject({ streamId: 'b', problem: 'stream_missing' });
    const garbled = [...clean];
    garbled[5] = '{"event_id": 12';
    expect((await verifyExport(garbled)).firstBrokenLink).toMatchObject({ problem: 'malformed_line', line: 6 });
  });

  it('exports and verifies a range whose streams began before it, and sees its first event removed', async () => {
    const positions = clean.slice(1, -1).map((line) => BigInt((JSON.parse(line) as { global_position: string }).global_position));
    const range = await collect(exportLines(db.pool, { fromPosition: positions[4]!, toPosition: positions[9]! }));
    expect(range).toHaveLength(1 + 6 + 1);
    expect((await verifyExport(range)).firstBrokenLink).toBeNull();
    const withoutFirst = range.filter((_, i) => i !== 1);
    expect((await verifyExport(withoutFirst)).firstBrokenLink).toMatchObject({ problem: 'stream_start_mismatch' });
  });

  it("checks an earlier export's heads against the database: a removed newest event is named", async () => {
    const other = await createTestDatabase();
    try {
      const otherStore = new PostgresEventStore(other.pool);
      await otherStore.append(
        'x',
        [1, 2, 3].map((n) => testEvent(`E${n}`, { n })),
        { expectedVersion: 0 },
      );
      const earlier = await collect(exportLines(other.pool, { fromPosition: null, toPosition: null }));
      const summary = JSON.parse(earlier[earlier.length - 1]!) as { summary: { heads: Record<string, [number, string]> } };
      const heads = new Map(
        Object.entries(summary.summary.heads).map(([s, [version, hex]]) => [s, { version, chainHash: Buffer.from(hex, 'hex') }]),
      );
      await otherStore.append('x', [testEvent('E4')], { expectedVersion: 3 });
      expect(await verifyCheckpoint(other.pool, heads)).toBeNull();

      const client = await other.pool.connect();
      try {
        await client.query("SET session_replication_role = 'replica'");
        await client.query("DELETE FROM onceport.events WHERE stream_id = 'x' AND stream_version >= 3");
      } finally {
        client.release(true);
      }
      expect(await verifyCheckpoint(other.pool, heads)).toMatchObject({ streamId: 'x', streamVersion: 3, problem: 'stream_head_mismatch' });
    } finally {
      await other.drop();
    }
  });
});
