import type { EventHandler } from '../consumer/event-handler';
import { sharedNoticesOf } from '@onceport/event-store';
import type { Pool } from 'pg';
import type { ConsumerSpec, EventConsumer, EventDelivery } from './event-delivery.port';
import { StoreTailEventConsumer } from './store-tail-event-consumer';

/** Embedded delivery: every consumer tails the store itself; no broker in between. */
export class InProcessDelivery implements EventDelivery {
  readonly kind = 'in_process' as const;

  constructor(
    private readonly pool: Pool,
    private readonly onError: (error: unknown) => void,
  ) {}

  consumer(spec: ConsumerSpec, handler: EventHandler): EventConsumer {
    return new StoreTailEventConsumer(this.pool, spec, handler, this.onError);
  }

  /** Every tailing reader of the pool looks now: the consumers, and the projections and the intake's feed beside them. */
  nudge(): void {
    sharedNoticesOf(this.pool).nudge();
  }

  /** The consumers tail the store, woken by the writers' nudge: nothing to hand on. */
  committed(): void {
    // Nothing: see nudge.
  }

  /** Nothing to hear: a writer here wakes the store's readers in-process at its commit (see nudge). */
  hear(): () => void {
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
