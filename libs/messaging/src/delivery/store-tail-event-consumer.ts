import { setTimeout as sleep } from 'node:timers/promises';
import { type CommittedEvent, EventQuarantine, type StoredEvent, StoreSubscription } from '@onceport/event-store';
import type { DeliveryContext, EventHandler } from '../consumer/event-handler';
import { deliverUnderInbox } from '../consumer/inbox';
import { Semaphore } from '../consumer/semaphore';
import { type PublishableEvent, toWireEvent } from '../wire-event';
import type { Pool } from 'pg';
import type { ConsumerSpec, EventConsumer } from './event-delivery.port';

/** How often a consumer saves where it is while events keep coming (it also saves when the tail runs dry). */
const CHECKPOINT_EVERY_MS = 250;
/** Events handed on ahead of the tail and not reached by it yet, at most: past that, the tail handles new ones. */
const HANDED_ON_KEPT = 10_000;
/**
 * A handed-on event the tail has not reached this long after its handling ended is forgotten: the
 * tail read it before it was handed on, or does not lead here. Should it come after all, it is
 * handled again, which its stream's version makes harmless.
 */
const FORGET_HANDED_ON_AFTER_MS = 30_000;

/** One event handed on (see offer): whether its handling succeeded, and when it ended. */
interface HandedOn {
  readonly handled: Promise<boolean>;
  endedAt: number | null;
}

/**
 * The in-process twin of the JetStream consumer: tails the store from the consumer's own durable
 * checkpoint and hands each event of its types to the handler, with the same inbox guarantees.
 * Events of one batch are handled concurrently (a slow target must not hold up the others); the
 * checkpoint moves only when all of them succeeded. An event whose handler keeps failing is
 * quarantined under `consumer:<durable>` (the same name the JetStream consumer uses) and skipped.
 */
export class StoreTailEventConsumer implements EventConsumer {
  private readonly subscription: StoreSubscription;
  private readonly quarantine: EventQuarantine;
  private readonly types: ReadonlySet<string>;
  /** Events this process's writers handed on (see offer), by id, in the order handed on, until the tail reaches them. */
  private readonly handedOn = new Map<string, HandedOn>();
  /** The consumer's concurrency, shared by the tail and the events handed on. */
  private readonly slots: Semaphore;
  private running = false;

  constructor(
    private readonly pool: Pool,
    private readonly spec: ConsumerSpec,
    private readonly handler: EventHandler,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    const types = new Set(spec.eventTypes);
    this.types = types;
    this.slots = new Semaphore(spec.concurrency ?? 64);
    this.quarantine = new EventQuarantine(pool, `consumer:${spec.durable}`);
    this.subscription = new StoreSubscription(
      pool,
      {
        subscriptionId: `consumer:${spec.durable}`,
        mode: 'at_least_once',
        exclusive: true,
        pollIntervalMs: 500,
        // The inbox makes a redelivery harmless; a checkpoint commit per consumer per batch was not.
        checkpointEveryMs: CHECKPOINT_EVERY_MS,
        batchSize: spec.concurrency ?? 64,
        onError,
        quarantine: { register: this.quarantine, reapply: (event) => this.handleOnce(event, 1) },
      },
      (events) => Promise.all(events.filter((e) => types.has(e.type)).map((e) => this.handleFromTail(e))).then(() => undefined),
    );
  }

  async start(): Promise<void> {
    this.running = true;
    this.subscription.start();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.subscription.stop();
    await this.slots.drained();
    this.handedOn.clear();
  }

  /**
   * Events a writer of this process just committed: handled now, once each, without waiting for the
   * tail to be woken and to read them (that wake and read were about a third of each hop between
   * the embedded services). The tail stays the truth: it skips an event handled here, and handles
   * one whose handling here failed, with its retries and quarantine. An event both reach at once
   * is handled twice, which its stream's version makes harmless, as for any redelivery.
   */
  offer(events: readonly CommittedEvent[]): void {
    if (!this.running) return;
    this.forgetStaleHandedOn();
    for (const event of events) {
      if (!this.types.has(event.type) || this.handedOn.has(event.eventId) || this.handedOn.size >= HANDED_ON_KEPT) continue;
      // Every slot taken: the tail handles it in its turn, within the consumer's concurrency.
      if (!this.slots.tryAcquire()) continue;
      const entry: HandedOn = {
        handled: this.handleOnce(event, 1)
          .then(
            () => true,
            () => false, // the tail's to handle, and to report if it keeps failing
          )
          .finally(() => {
            entry.endedAt = Date.now();
            this.slots.release();
          }),
        endedAt: null,
      };
      this.handedOn.set(event.eventId, entry);
    }
  }

  /** Drops the oldest handed-on events the tail has not come for since long after their handling ended. */
  private forgetStaleHandedOn(): void {
    const before = Date.now() - FORGET_HANDED_ON_AFTER_MS;
    for (const [eventId, entry] of this.handedOn) {
      if (entry.endedAt === null || entry.endedAt > before) return;
      this.handedOn.delete(eventId);
    }
  }

  /** An event the tail read: skipped if a writer here handed it on and it was handled; else handled until done. */
  private async handleFromTail(event: StoredEvent): Promise<void> {
    const handedOn = this.handedOn.get(event.eventId);
    if (handedOn) {
      this.handedOn.delete(event.eventId);
      if (await handedOn.handled) return;
    }
    await this.slots.acquire();
    try {
      await this.handleUntilDone(event);
    } finally {
      this.slots.release();
    }
  }

  private async handleUntilDone(event: StoredEvent): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.handleOnce(event, attempt);
        if (attempt > 1) await this.forgetFailures(event);
        return;
      } catch (error) {
        this.onError(error);
        if (!this.running) throw error;
        if ((await this.verdictAfter(event, error)) === 'skip') return;
        await sleep(Math.min(250 * 2 ** (attempt - 1), 10_000));
      }
    }
  }

  /** A failure the quarantine cannot record (the database is down) is simply retried, as before. */
  private async verdictAfter(event: StoredEvent, error: unknown): Promise<'retry' | 'skip'> {
    try {
      return await this.quarantine.failed(event, error);
    } catch (recordError) {
      this.onError(recordError);
      return 'retry';
    }
  }

  private async forgetFailures(event: StoredEvent): Promise<void> {
    try {
      await this.quarantine.succeeded(event.eventId);
    } catch (error) {
      this.onError(error); // a stale count only; the event was handled
    }
  }

  private async handleOnce(event: PublishableEvent, deliveryCount: number): Promise<void> {
    const wire = toWireEvent(event);
    const traceparent = typeof event.metadata['traceparent'] === 'string' ? event.metadata['traceparent'] : null;
    const tracestate = typeof event.metadata['tracestate'] === 'string' ? event.metadata['tracestate'] : null;
    const context: DeliveryContext = { subject: event.type, deliveryCount, traceparent, tracestate, tx: null };
    await deliverUnderInbox(this.pool, this.spec.inbox, this.spec.durable, event.eventId, (tx) => this.handler(wire, { ...context, tx }));
  }
}
