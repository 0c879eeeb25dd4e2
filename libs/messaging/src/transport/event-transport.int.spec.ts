import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Controller, type INestApplication, Inject, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, Payload } from '@nestjs/microservices';
import { eventSubject } from '@onceport/contracts';
import {
  DEFAULT_QUARANTINE_AFTER_ATTEMPTS,
  PostgresEventStore,
  type Queryable,
  configureQuarantineDefaults,
  quarantineEntry,
} from '@onceport/event-store';
import { type TestDatabase, createTestDatabase, testEvent } from '@onceport/event-store/testing';
import type { DeliveryContext } from '../consumer/event-handler';
import type { EventDelivery } from '../delivery/event-delivery.port';
import { InProcessDelivery } from '../delivery/in-process-delivery';
import { JetStreamDelivery } from '../delivery/jetstream-delivery';
import { EXECUTION_STREAM_NAME } from '../jetstream/execution-stream';
import { messagingMigrations } from '../migrations';
import { TestNatsServer, connectKit, waitFor } from '../testing';
import type { WireEvent } from '../wire-event';
import { ConsumeEvents, type ConsumerSettings } from './consume-events.decorator';
import { connectEventConsumers } from './connect-event-consumers';

const DURABLE = 'transport-test';
const SETTINGS = Symbol('TRANSPORT_TEST_SETTINGS');
const ATTEMPTS = 3;

@Injectable()
class Deliveries {
  readonly counts = new Map<string, number[]>();
}

/** A service's message controller as the features write them: one handler, on the versioned subject. */
@Controller()
class TestHappenedConsumer {
  constructor(@Inject(Deliveries) private readonly deliveries: Deliveries) {}

  @ConsumeEvents(eventSubject('TestHappened', 1), { durable: DURABLE, inbox: 'transactional', settingsFrom: SETTINGS })
  async onTestHappened(@Payload() event: WireEvent, @Ctx() context: DeliveryContext): Promise<void> {
    const { eventId } = event.metadata;
    this.deliveries.counts.set(eventId, [...(this.deliveries.counts.get(eventId) ?? []), context.deliveryCount]);
    if (Number(event.data['n']) < 0) throw new Error(`refusing n=${String(event.data['n'])}`);
    await (context.tx as Queryable).query('INSERT INTO effects (event_id, n) VALUES ($1, $2)', [eventId, event.data['n']]);
  }
}

/**
 * The transport strategies behind `@ConsumeEvents`: a handler in a Nest app receives what the store
 * holds (on JetStream: relayed from the outbox, over a durable consumer), a throwing handler's event
 * is delivered again and quarantined after the configured attempts with the handler's own error.
 */
describe.each(['jetstream', 'in_process'] as const)(
  '@ConsumeEvents over the %s transport (real PostgreSQL; a real JetStream for jetstream)',
  (kind) => {
    let nats: TestNatsServer | null = null;
    let db: TestDatabase;
    let delivery: EventDelivery;
    let app: INestApplication;
    let deliveries: Deliveries;
    let store: PostgresEventStore;

    beforeAll(async () => {
      configureQuarantineDefaults({ afterAttempts: ATTEMPTS });
      db = await createTestDatabase(messagingMigrations);
      await db.pool.query('CREATE TABLE effects (event_id uuid PRIMARY KEY, n integer NOT NULL)');
      store = new PostgresEventStore(db.pool);
      if (kind === 'jetstream') nats = await TestNatsServer.start();
      delivery = nats
        ? new JetStreamDelivery(db.pool, { natsUrl: nats.url, connectionName: 'transport-test', onError: () => undefined })
        : new InProcessDelivery(db.pool, () => undefined);
      await delivery.start();
      const settings: ConsumerSettings = { concurrency: 4, ackWaitMs: 7_000 };
      @Module({ controllers: [TestHappenedConsumer], providers: [Deliveries, { provide: SETTINGS, useValue: settings }] })
      class TestService {}
      app = await NestFactory.create(TestService, { logger: false });
      connectEventConsumers(app, delivery);
      await app.init();
      await app.startAllMicroservices();
      deliveries = app.get(Deliveries);
    });
    afterAll(async () => {
      await app?.close();
      await delivery?.stop();
      await db?.drop();
      await nats?.stop();
      configureQuarantineDefaults({ afterAttempts: DEFAULT_QUARANTINE_AFTER_ATTEMPTS });
    });

    /** Appended as an execution stream's event: the only kind the relay publishes. */
    const append = async (n: number): Promise<string> => {
      const event = testEvent('TestHappened', { n });
      await store.append(`execution-${randomUUID()}`, [event], { expectedVersion: 'no_stream' });
      delivery.nudge();
      return event.eventId;
    };
    const effects = async (): Promise<number[]> =>
      (await db.pool.query<{ n: number }>('SELECT n FROM effects ORDER BY n')).rows.map((row) => row.n);
    const entry = (eventId: string) => quarantineEntry(db.pool, `consumer:${DURABLE}`, eventId);

    it('hands a stored event to the @ConsumeEvents handler, once, in the inbox transaction', async () => {
      const eventId = await append(1);
      await waitFor(async () => (await effects()).includes(1), 30_000, 'the event handled');
      expect(deliveries.counts.get(eventId)).toEqual([1]);
      expect(
        (await db.pool.query('SELECT 1 FROM onceport.consumer_inbox WHERE consumer = $1 AND event_id = $2', [DURABLE, eventId])).rowCount,
      ).toBe(1);
    });

    it('delivers a throwing handler’s event again, then quarantines it with the handler’s error; later events still flow', async () => {
      const poison = await append(-1);
      await waitFor(async () => (await entry(poison))?.status === 'quarantined', 30_000, 'the failing event quarantined');
      expect(await entry(poison)).toMatchObject({
        attempts: ATTEMPTS,
        event_type: 'TestHappened',
        last_error: expect.stringMatching(/refusing n=-1/),
      });
      // Delivered again each time (JetStream redelivers after the nak; the store tail retries in place).
      expect(deliveries.counts.get(poison)).toEqual([1, 2, 3]);
      const later = await append(2);
      await waitFor(async () => (await effects()).includes(2), 30_000, 'a later event handled');
      expect(deliveries.counts.get(later)).toEqual([1]);
      expect(deliveries.counts.get(poison)).toHaveLength(ATTEMPTS);
    });

    if (kind === 'jetstream') {
      it('creates the durable consumer with the settings the provider gave at start, and terminates the quarantined message', async () => {
        const kit = await connectKit(nats!.url);
        try {
          const info = () => kit.jsm.consumers.info(EXECUTION_STREAM_NAME, `${DURABLE}--test-happened`);
          expect((await info()).config.ack_wait).toBe(7_000 * 1_000_000);
          expect((await info()).config.filter_subject).toBe('onceport.execution.test-happened.*');
          await waitFor(async () => (await info()).num_ack_pending === 0, 10_000, 'nothing pending');
        } finally {
          await kit.close();
        }
      });
    }
  },
);
