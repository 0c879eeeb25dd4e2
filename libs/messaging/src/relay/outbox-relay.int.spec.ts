import { DeliverPolicy } from '@nats-io/jetstream';
import { PostgresEventStore } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase, testEvent } from '@onceport/event-store/testing';
import { EXECUTION_STREAM_NAME } from '../jetstream/execution-stream';
import { messagingMigrations } from '../migrations';
import { type NatsKit, TestNatsServer, connectKit, waitFor } from '../testing';
import { OutboxRelay } from './outbox-relay';

describe('OutboxRelay (real PostgreSQL, real JetStream)', () => {
  let nats: TestNatsServer;
  let db: TestDatabase;
  let kit: NatsKit;
  let store: PostgresEventStore;

  beforeEach(async () => {
    nats = await TestNatsServer.start();
    db = await createTestDatabase(messagingMigrations);
    kit = await connectKit(nats.url);
    store = new PostgresEventStore(db.pool);
  });
  afterEach(async () => {
    await kit.close();
    await db.drop();
    await nats.stop();
  });

  const streamMessages = async (): Promise<number> => (await kit.jsm.streams.info(EXECUTION_STREAM_NAME)).state.messages;
  const newRelay = (): OutboxRelay =>
    new OutboxRelay(db.pool, kit.nc, kit.js, kit.jsm, { streamName: EXECUTION_STREAM_NAME, pollIntervalMs: 50, publishTimeoutMs: 2000 });

  it('stores a duplicate publish of one event id once', async () => {
    const first = await kit.js.publish('onceport.execution.test-happened.v1', '{}', { msgID: 'same-id' });
    const second = await kit.js.publish('onceport.execution.test-happened.v1', '{}', { msgID: 'same-id' });
    expect(first.duplicate).toBe(false);
    expect(second.duplicate).toBe(true);
    expect(await streamMessages()).toBe(1);
  });

  it('publishes every stored event with Nats-Msg-Id = event id; republishing the whole store adds nothing', async () => {
    const events = Array.from({ length: 30 }, (_, i) => testEvent('TestHappened', { i }));
    for (const [i, e] of events.entries()) await store.append(`relay-${i % 3}`, [e], { expectedVersion: 'any' });
    const relay = newRelay();
    expect(await relay.drain()).toBe(30);
    expect(await streamMessages()).toBe(30);

    await db.pool.query(`UPDATE onceport.subscription_checkpoints SET transaction_id = '0'::xid8, global_position = 0`);
    expect(await newRelay().drain()).toBe(30);
    expect(await streamMessages()).toBe(30);

    const ids = await publishedMessageIds(kit);
    expect(new Set(ids)).toEqual(new Set(events.map((e) => e.eventId)));
  });

  it('after nats-server is SIGKILLed and restarted mid-stream, no stored event is left unpublished', async () => {
    const relay = newRelay();
    relay.start();
    const appended: string[] = [];
    const writer = (async () => {
      for (let i = 0; i < 150; i++) {
        const event = testEvent('TestHappened', { i });
        await store.append(`kill-${i}`, [event], { expectedVersion: 0 });
        appended.push(event.eventId);
        relay.nudge();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    await waitFor(() => appended.length >= 40, 30_000, '40 events appended');
    await nats.kill('SIGKILL');
    await waitFor(() => appended.length >= 90, 30_000, '90 events appended');
    await nats.restart();
    await writer;
    await waitFor(async () => (await streamMessages().catch(() => 0)) >= appended.length, 60_000, 'every event in the stream');
    await relay.stop();

    const ids = await publishedMessageIds(kit);
    expect(new Set(ids)).toEqual(new Set(appended));
    expect(ids).toHaveLength(appended.length);
  });

  it('records what was acknowledged at most once per interval, the checkpoint never past the record; what a relay left unrecorded the next one republishes, stored once', async () => {
    const events = Array.from({ length: 30 }, (_, i) => testEvent('TestHappened', { i }));
    for (const [i, e] of events.entries()) await store.append(`record-${i}`, [e], { expectedVersion: 0 });
    const positions = (await store.readAll()).map((e) => e.globalPosition);
    const durable = async () => {
      const records = await db.pool.query<{ n: number; newest: string | null }>(
        'SELECT count(*)::int AS n, max(stream_sequence)::text AS newest FROM onceport.relay_publications',
      );
      const checkpoint = await db.pool.query<{ position: string }>(
        `SELECT global_position::text AS position FROM onceport.subscription_checkpoints WHERE subscription_id = 'outbox-relay'`,
      );
      return {
        records: records.rows[0]?.n,
        newestSequence: Number(records.rows[0]?.newest),
        checkpoint: BigInt(checkpoint.rows[0]?.position ?? -1),
      };
    };
    const first = new OutboxRelay(db.pool, kit.nc, kit.js, kit.jsm, {
      streamName: EXECUTION_STREAM_NAME,
      batchSize: 5,
      pollIntervalMs: 50,
      publishTimeoutMs: 2000,
      recordIntervalMs: 600_000,
    });
    first.start();
    await waitFor(async () => (await streamMessages()) === 30, 30_000, 'all 30 published');

    // Several batches acknowledged; only the first recorded (the interval had not begun), and the
    // checkpoint with it. (How many events the first batch held depends on what the shared server's
    // open transactions held back: at most five.)
    const recorded = await durable();
    expect(recorded.records).toBe(1);
    expect(recorded.newestSequence).toBeGreaterThanOrEqual(1);
    expect(recorded.newestSequence).toBeLessThanOrEqual(5);
    expect(recorded.checkpoint).toBe(positions[recorded.newestSequence - 1]);

    // As if the first relay had died now: the next one starts from the saved checkpoint and republishes
    // the rest, which JetStream stores once (the same message ids).
    expect(await newRelay().drain()).toBe(30 - recorded.newestSequence);
    expect(await streamMessages()).toBe(30);
    expect(new Set(await publishedMessageIds(kit))).toEqual(new Set(events.map((e) => e.eventId)));

    // Stopping records what it had left.
    await first.stop();
    expect(await durable()).toMatchObject({ newestSequence: 30, checkpoint: positions[29] });
  });

  describe('a new relay (empty memory) after nats-server lost what an earlier relay published', () => {
    const publishWithFirstRelay = async (count: number): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const event = testEvent('TestHappened', { i });
        await store.append(`lost-${i}`, [event], { expectedVersion: 0 });
        ids.push(event.eventId);
      }
      const first = new OutboxRelay(db.pool, kit.nc, kit.js, kit.jsm, {
        streamName: EXECUTION_STREAM_NAME,
        batchSize: 4,
        publishTimeoutMs: 2000,
      });
      expect(await first.drain()).toBe(count);
      expect(await streamMessages()).toBe(count);
      return ids;
    };
    const restartBroker = async (damage: () => void): Promise<void> => {
      await kit.close();
      await nats.kill('SIGKILL');
      damage();
      await nats.restart();
      kit = await connectKit(nats.url);
    };
    const relayAgain = async (): Promise<void> => {
      const errors: string[] = [];
      const relay = new OutboxRelay(db.pool, kit.nc, kit.js, kit.jsm, {
        streamName: EXECUTION_STREAM_NAME,
        batchSize: 4,
        pollIntervalMs: 50,
        publishTimeoutMs: 2000,
        onError: (error) => errors.push(String(error)),
      });
      relay.start();
      try {
        await waitFor(async () => (await streamMessages()) >= 30, 30_000, 'the lost events published again').catch(async (error) => {
          // What the relay ran into and where it stands, so that a failure says why.
          const checkpoint = await db.pool.query('SELECT * FROM onceport.subscription_checkpoints');
          const records = await db.pool.query('SELECT * FROM onceport.relay_publications');
          // A writing transaction open anywhere on the server holds every tail back (pg_snapshot_xmin is cluster-wide).
          const writers = await db.pool.query(
            `SELECT datname, state, backend_xid::text, (now() - xact_start)::text AS open_for, left(query, 120) AS query
               FROM pg_stat_activity WHERE backend_xid IS NOT NULL`,
          );
          throw new Error(
            `${String(error)}; stream holds ${await streamMessages()}; relay errors: ${JSON.stringify(errors.slice(-10))}; ` +
              `checkpoints: ${JSON.stringify(checkpoint.rows)}; records: ${JSON.stringify(records.rows)}; ` +
              `open writers: ${JSON.stringify(writers.rows)}`,
          );
        });
        await new Promise((resolve) => setTimeout(resolve, 300)); // nothing more comes
      } finally {
        await relay.stop();
      }
    };

    it('store wiped and refilled by others (last sequence above 0, below what was acknowledged): republishes every event', async () => {
      const ids = await publishWithFirstRelay(30);
      await restartBroker(() => nats.wipeStore());
      for (let i = 0; i < 3; i++) await kit.js.publish('onceport.execution.unrelated-thing.v1', '{}', { msgID: `unrelated-${i}` });
      expect((await kit.jsm.streams.info(EXECUTION_STREAM_NAME)).state.last_seq).toBe(3);

      await relayAgain();
      const published = await publishedMessageIds(kit);
      expect(published.filter((id) => !id.startsWith('unrelated-')).sort()).toEqual([...ids].sort());
      expect(published).toHaveLength(33);
    });

    it('store cut back to its first 10 messages: republishes the 20 lost, once each', async () => {
      const ids = await publishWithFirstRelay(30);
      await restartBroker(() => nats.truncateStream(EXECUTION_STREAM_NAME, 10));
      expect((await kit.jsm.streams.info(EXECUTION_STREAM_NAME)).state.last_seq).toBe(10);

      await relayAgain();
      const published = await publishedMessageIds(kit);
      expect(published).toEqual(ids); // store order, no event twice
    });
  });
});

/** Reads the whole stream with an ordered consumer and returns each message's Nats-Msg-Id. */
async function publishedMessageIds(kit: NatsKit): Promise<string[]> {
  const total = (await kit.jsm.streams.info(EXECUTION_STREAM_NAME)).state.messages;
  const consumer = await kit.js.consumers.get(EXECUTION_STREAM_NAME, { deliver_policy: DeliverPolicy.All });
  const ids: string[] = [];
  while (ids.length < total) {
    const message = await consumer.next({ expires: 2000 });
    if (!message) break;
    ids.push(message.headers?.get('Nats-Msg-Id') ?? '');
  }
  return ids;
}
