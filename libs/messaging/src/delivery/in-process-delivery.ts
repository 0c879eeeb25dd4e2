import type { EventHandler } from '../consumer/event-handler';
import { type CommittedEvent, sharedNoticesOf } from '@onceport/event-store';
import type { Pool } from 'pg';
import type { ConsumerSpec, EventConsumer, EventDelivery } from './event-delivery.port';
import { refuseOffJetStream } from './off-jetstream';
import { StoreTailEventConsumer } from './store-tail-event-consumer';

/** Embedded delivery: every consumer tails the store itself, no broker in between; what a writer here commits is handed to them at once. */
export class InProcessDelivery implements EventDelivery {
  readonly kind = 'in_process' as const;
  private readonly consumers: StoreTailEventConsumer[] = [];

  constructor(
    private readonly pool: Pool,
    private readonly onError: (error: unknown) => void,
  ) {}

  consumer(spec: ConsumerSpec, handler: EventHandler): EventConsumer {
    refuseOffJetStream(spec.eventTypes, `the consumer ${spec.durable}`);
    const consumer = new StoreTailEventConsumer(this.pool, spec, handler, this.onError);
    this.consumers.push(consumer);
    return {
      start: () => consumer.start(),
      stop: async () => {
        await consumer.stop();
        const index = this.consumers.indexOf(consumer);
        if (index >= 0) this.consumers.splice(index, 1);
      },
    };
  }

  /** Every tailing reader of the pool looks now: the consumers, and the projections and the intake's feed beside them. */
  nudge(): void {
    sharedNoticesOf(this.pool).nudge();
  }

  /** Handed to every consumer of this process at once; each one's tail skips what it handled so. */
  committed(events: readonly CommittedEvent[]): void {
    for (const consumer of this.consumers) consumer.offer(events);
  }

  /** Nothing to hear: a writer here wakes the store's readers in-process at its commit (see nudge). */
  hear(eventTypes: readonly string[]): () => void {
    refuseOffJetStream(eventTypes, 'a listener');
    return () => undefined;
  }

  redeliver(): Promise<void> {
    return Promise.resolve();
  }

  /** Nothing to connect: the consumers tail the store themselves. */
  start(): Promise<void> {
    return Promise.resolve();
  }

  /** Each consumer is stopped by the service that made it. */
  stop(): Promise<void> {
    return Promise.resolve();
  }

  isReady(): boolean {
    return true;
  }
}
