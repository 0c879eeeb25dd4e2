import { randomBytes } from 'node:crypto';
import { register } from 'prom-client';
import { PostgresEventStore } from '../postgres-event-store';
import type { Projection } from '../projections/projection';
import { ProjectionRunner } from '../projections/projection-runner';
import { type TestDatabase, createTestDatabase, testEvent } from '../testing';
import type { QuarantineLog } from './event-quarantine';
import { quarantineEntry, releaseQuarantined, requestRetry } from './quarantine-entries';
import { sqlMigration } from '../migrations';

/**
 * A read model with a btree index over free text, like `execution_matches` before its digest: a
 * label of a few KB of random text cannot enter the index (PostgreSQL's row limit of 2704 bytes),
 * so the event carrying it is genuinely unappliable, in the real database.
 */
const labels: Projection = {
  name: 'labels',
  migrations: [
    sqlMigration(
      '900-labels',
      'CREATE TABLE labels (event_id uuid PRIMARY KEY, label text NOT NULL); CREATE INDEX labels_label_idx ON labels (label)',
    ),
  ],
  async apply(events, tx) {
    for (const event of events)
      await tx.query('INSERT INTO labels (event_id, label) VALUES ($1, $2)', [event.eventId, String(event.data['label'])]);
  },
  async reset(tx) {
    await tx.query('DELETE FROM labels');
  },
};

const huge = (): string => randomBytes(3000).toString('base64'); // ~4 KB that compression cannot shrink

describe('the quarantine under a projection (real PostgreSQL, an event the index refuses)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let lines: { level: string; message: string; fields: Record<string, unknown> }[];
  const log: QuarantineLog = (level, message, fields) => lines.push({ level, message, fields });
  const runners: ProjectionRunner[] = [];

  beforeEach(async () => {
    db = await createTestDatabase(labels.migrations);
    store = new PostgresEventStore(db.pool);
    lines = [];
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
    await db.drop();
  });

  const append = async (label: string): Promise<string> => {
    const event = testEvent('LabelSet', { label });
    await store.append(`labels-${event.eventId}`, [event], { expectedVersion: 'no_stream' });
    return event.eventId;
  };
  const applied = async (): Promise<string[]> =>
    (await db.pool.query<{ label: string }>('SELECT label FROM labels ORDER BY label')).rows.map((r) => r.label);
  const entry = (eventId: string) => quarantineEntry(db.pool, 'projection:labels', eventId);
  const until = async <T>(probe: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (ok(value)) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const started = (): ProjectionRunner => {
    const runner = new ProjectionRunner(db.pool, labels, { pollIntervalMs: 100, retryDelayMs: 50, quarantineAfterAttempts: 3, log });
    runner.start();
    runners.push(runner);
    return runner;
  };

  it('finds the poison event inside a batch, quarantines it after 3 attempts with one warn line and a count, and projects the rest in order', async () => {
    const counted = async (): Promise<number> =>
      (await register.getSingleMetric('onceport_events_quarantined_total')!.get()).values.find(
        (v) => v.labels['subscriber'] === 'projection:labels',
      )?.value ?? 0;
    const before = await counted();
    await append('a-before');
    const poison = await append(huge());
    await append('b-after');
    await append('c-after');
    started();

    expect(await until(applied, (l) => l.length === 3, 'the events around the poison one')).toEqual(['a-before', 'b-after', 'c-after']);
    const quarantined = await entry(poison);
    expect(quarantined).toMatchObject({ status: 'quarantined', attempts: 3, event_type: 'LabelSet', stream_id: `labels-${poison}` });
    expect(quarantined?.last_error).toMatch(/index row size \d+ exceeds btree version \d+ maximum 2704/);
    expect(quarantined?.quarantined_at).not.toBeNull();
    const warnings = lines.filter((l) => l.message === 'event quarantined');
    expect(warnings).toEqual([
      {
        level: 'warn',
        message: 'event quarantined',
        fields: expect.objectContaining({ subscriber: 'projection:labels', eventId: poison, eventType: 'LabelSet', attempts: 3 }),
      },
    ]);
    expect(await counted()).toBe(before + 1);

    // Later events keep flowing past it.
    await append('d-later');
    expect(await until(applied, (l) => l.includes('d-later'), 'an event appended after the quarantine')).toHaveLength(4);
  });

  it('a catch-up (what the approvals list and the sweeper call) fails only until the event is quarantined, then goes past it', async () => {
    const poison = await append(huge());
    await append('after');
    const catchUp = () => new ProjectionRunner(db.pool, labels, { quarantineAfterAttempts: 2, log }).catchUp();
    await expect(catchUp()).rejects.toThrow(/index row size/);
    expect(await entry(poison)).toMatchObject({ status: 'failing', attempts: 1 });
    await expect(catchUp()).resolves.toBe(2); // both read: the poison one quarantined and skipped, "after" applied
    expect(await applied()).toEqual(['after']);
    expect(await entry(poison)).toMatchObject({ status: 'quarantined', attempts: 2 });
    await expect(catchUp()).resolves.toBe(0);
  });

  it('a retry of a still-broken event keeps it quarantined; once the cause is fixed a retry resolves it; a release closes it with who and why', async () => {
    const broken = await append(huge());
    const released = await append(huge());
    started();
    await until(
      () => entry(released),
      (e) => e?.status === 'quarantined',
      'both quarantined',
    );

    expect(await requestRetry(db.pool, 'projection:labels', broken, 'ops:alice')).toMatchObject({
      ok: true,
      entry: { status: 'retry_requested', retry_requested_by: 'ops:alice' },
    });
    const failedAgain = await until(
      () => entry(broken),
      (e) => e?.status === 'quarantined' && e.attempts === 4,
      'the retry tried and failed',
    );
    expect(failedAgain?.last_error).toMatch(/index row size/);
    expect(lines.some((l) => l.message === 'quarantined event retried and failed again' && l.fields['eventId'] === broken)).toBe(true);

    // The operator fixes the read model (here: drops the index the label cannot enter) and retries.
    await db.pool.query('DROP INDEX labels_label_idx');
    await requestRetry(db.pool, 'projection:labels', broken, 'ops:alice');
    expect(
      await until(
        () => entry(broken),
        (e) => e?.status === 'resolved',
        'the retry applied',
      ),
    ).toMatchObject({ closed_by: 'ops:alice', close_reason: 'retried: applied' });
    expect((await db.pool.query('SELECT 1 FROM labels WHERE event_id = $1', [broken])).rowCount).toBe(1);

    expect(await releaseQuarantined(db.pool, 'projection:labels', released, 'ops:bob', 'a writer bug; the label is lost')).toMatchObject({
      ok: true,
      entry: { status: 'released', closed_by: 'ops:bob', close_reason: 'a writer bug; the label is lost' },
    });
    expect(await releaseQuarantined(db.pool, 'projection:labels', released, 'ops:bob', 'again')).toMatchObject({
      ok: false,
      reason: 'not_open',
    });
    expect(await requestRetry(db.pool, 'projection:labels', released, 'ops:bob')).toMatchObject({ ok: false, reason: 'not_open' });
    expect(await requestRetry(db.pool, 'projection:labels', '00000000-0000-4000-8000-000000000000', 'ops:bob')).toMatchObject({
      ok: false,
      reason: 'not_found',
    });
  });

  it('an event that failed once and then applied leaves no count behind', async () => {
    let failOnce = true;
    const flaky: Projection = {
      ...labels,
      async apply(events, tx) {
        if (failOnce) {
          failOnce = false;
          throw new Error('a passing failure');
        }
        await labels.apply(events, tx);
      },
    };
    const id = await append('flaky');
    const runner = new ProjectionRunner(db.pool, flaky, { pollIntervalMs: 100, retryDelayMs: 50, quarantineAfterAttempts: 3, log });
    runner.start();
    runners.push(runner);
    await until(applied, (l) => l.includes('flaky'), 'the flaky event applied');
    // The count is cleared right after the applying transaction commits, not inside it: wait for that.
    expect(
      await until(
        () => entry(id),
        (e) => e === null,
        'the failure count cleared',
      ),
    ).toBeNull();
  });
});
