import { FAULT_POINTS, faultPoint } from '@onceport/fault-points';
import type { ConsumerInfo, ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg, StreamInfo } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { eventSubject, eventSubjectWildcard, kebabEventName } from '@onceport/contracts';
import { EventQuarantine, type FailureVerdict, type QuarantineSubject } from '@onceport/event-store';
import type { Pool } from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureDurableConsumer } from '../jetstream/topology';
import { type WireEvent, parseWireEvent, toWireEvent } from '../wire-event';
import type { DeliveryContext, EventHandler, InboxMode } from './event-handler';
import { countDuplicate, countRedelivery } from '../metrics/delivery-metrics';
import { deliverUnderInbox } from './inbox';
import { Semaphore } from './semaphore';

export interface EventConsumerOptions {
  readonly stream: string;
  /** The service's durable name; every replica uses the same one and shares the work. */
  readonly durable: string;
  readonly eventTypes: readonly string[];
  readonly inbox: InboxMode;
  /** Messages handled at once per replica. */
  readonly concurrency?: number;
  readonly ackWaitMs?: number;
  readonly retryDelayMs?: number;
  readonly onError?: (error: unknown) => void;
  /** Failed deliveries before an event is quarantined and terminated; default: the process's setting (5). */
  readonly quarantineAfterAttempts?: number;
  /** How often this replica looks for operator retries of its quarantined events; default 2 s. */
  readonly retryCheckMs?: number;
}

/**
 * Feeds events from durable JetStream consumers to a handler, acks only after the handler succeeded,
 * naks (with backoff) when it failed, and makes redelivery harmless through the inbox. An event
 * whose handler keeps failing is quarantined under `consumer:<durable>` and terminated, so
 * JetStream stops redelivering it; an operator's retry is taken by the retry loop.
 */
export class JetStreamEventConsumer {
  private running = false;
  private readonly loops: Promise<void>[] = [];
  private readonly active = new Set<ConsumerMessages>();
  private readonly semaphore: Semaphore;
  private readonly quarantine: EventQuarantine;
  private stopRetryWait: AbortController | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly options: EventConsumerOptions,
    private readonly handler: EventHandler,
  ) {
    this.semaphore = new Semaphore(options.concurrency ?? 16);
    const afterAttempts = options.quarantineAfterAttempts;
    this.quarantine = new EventQuarantine(pool, `consumer:${options.durable}`, afterAttempts !== undefined ? { afterAttempts } : {});
  }

  async start(): Promise<void> {
    if (this.running) return;
    for (const type of this.options.eventTypes) await this.ensureConsumer(type);
    this.running = true;
    for (const type of this.options.eventTypes) this.loops.push(this.consumeLoop(type));
    this.loops.push(this.retryLoop());
    void this.watchReconnects();
  }

  /** Stops pulling, lets in-flight handlers finish (and ack), then returns. */
  async stop(): Promise<void> {
    this.running = false;
    this.stopRetryWait?.abort();
    await Promise.all([...this.active].map((messages) => messages.close()));
    await Promise.all(this.loops);
    await this.semaphore.drained();
  }

  private consumerName(type: string): string {
    return `${this.options.durable}--${kebabEventName(type)}`;
  }

  private ensureConsumer(type: string, startSequence?: number): Promise<void> {
    const spec = {
      durable: this.consumerName(type),
      filterSubject: eventSubjectWildcard(type),
      ackWaitMs: this.options.ackWaitMs ?? 30_000,
    };
    return ensureDurableConsumer(this.jsm, this.options.stream, spec, startSequence);
  }

  private async consumeLoop(type: string): Promise<void> {
    while (this.running) {
      try {
        await this.ensureConsumer(type);
        const consumer = await this.js.consumers.get(this.options.stream, this.consumerName(type));
        const messages = await consumer.consume({ max_messages: Math.max(16, (this.options.concurrency ?? 16) * 2) });
        this.active.add(messages);
        try {
          for await (const message of messages) {
            await this.semaphore.acquire();
            void this.handle(message).finally(() => this.semaphore.release());
          }
        } finally {
          this.active.delete(messages);
        }
      } catch (error) {
        this.options.onError?.(error);
      }
      if (this.running) await sleep(this.options.retryDelayMs ?? 250);
    }
  }

  private async handle(message: JsMsg): Promise<void> {
    let event;
    try {
      event = parseWireEvent(message.string());
    } catch (error) {
      // A message no handler can ever read would block its consumer forever: drop it, loudly.
      this.options.onError?.(error);
      // No reason text: nats-server 2.9 does not parse `+TERM <reason>` and leaves the message pending.
      message.term();
      return;
    }
    const context: DeliveryContext = {
      subject: message.subject,
      deliveryCount: message.info.deliveryCount,
      traceparent: message.headers?.get('traceparent') || null,
      tracestate: message.headers?.get('tracestate') || null,
      tx: null,
    };
    if (context.deliveryCount > 1) countRedelivery(this.options.durable);
    try {
      await this.deliver(event, context);
      if (context.deliveryCount > 1) await this.forgetFailures(event);
      faultPoint(FAULT_POINTS.consumerBeforeAck(this.options.durable));
      message.ack();
    } catch (error) {
      this.options.onError?.(error);
      if ((await this.verdictAfter(event, error)) === 'skip') {
        // Quarantined (or released): JetStream must stop redelivering it; the quarantine keeps it for an operator.
        // No reason text: nats-server 2.9 does not parse `+TERM <reason>` and leaves the message pending.
        message.term();
        return;
      }
      const backoff = (this.options.retryDelayMs ?? 250) * Math.min(2 ** (context.deliveryCount - 1), 64);
      message.nak(backoff);
    }
  }

  /** The handler, behind the inbox that makes a redelivery (or an operator's retry) harmless. */
  private async deliver(event: WireEvent, context: DeliveryContext): Promise<void> {
    const { durable } = this.options;
    const fresh = await deliverUnderInbox(this.pool, this.options.inbox, durable, event.metadata.eventId, (tx) =>
      this.handler(event, { ...context, tx }),
    );
    if (!fresh) countDuplicate(durable);
  }

  /** A failure the quarantine cannot record (the database is down) is redelivered, as before. */
  private async verdictAfter(event: WireEvent, error: unknown): Promise<FailureVerdict> {
    const subject = subjectOf(event);
    if (!subject) {
      // Not an event of our store (its id is no UUID): nothing to quarantine it under; drop it, loudly.
      this.options.onError?.(
        new Error(`dropping a failing message whose event id is not a UUID: ${JSON.stringify(event.metadata.eventId.slice(0, 80))}`),
      );
      return 'skip';
    }
    try {
      return await this.quarantine.failed(subject, error);
    } catch (recordError) {
      this.options.onError?.(recordError);
      return 'retry';
    }
  }

  private async forgetFailures(event: WireEvent): Promise<void> {
    try {
      await this.quarantine.succeeded(event.metadata.eventId);
    } catch (error) {
      this.options.onError?.(error); // a stale count only; the event was handled
    }
  }

  /** Takes operator retries of this durable's quarantined events, whichever replica gets there first. */
  private async retryLoop(): Promise<void> {
    while (this.running) {
      try {
        await this.quarantine.runRetries((stored) => {
          const event = toWireEvent(stored);
          return this.deliver(event, {
            subject: eventSubject(event.type, event.schemaVersion),
            deliveryCount: 1,
            traceparent: null,
            tracestate: null,
            tx: null,
          });
        });
      } catch (error) {
        this.options.onError?.(error);
      }
      if (!this.running) return;
      this.stopRetryWait = new AbortController();
      await sleep(this.options.retryCheckMs ?? 2000, undefined, { signal: this.stopRetryWait.signal }).catch(() => undefined);
    }
  }

  /**
   * A NATS server that restarts without having synced its tail can come back with a stream shorter
   * than what its consumers were already given; such a consumer would skip the republished
   * messages (they get the lost sequences again). Recreate it at its ack floor, not past the
   * stream's new end: a message it was given but never acked (a handler failed, and its nak went
   * to the consumer deleted here) must come again. The inbox makes the re-handled ones harmless.
   */
  private async watchReconnects(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (!this.running) return;
      if (status.type !== 'reconnect') continue;
      try {
        const stream = await this.jsm.streams.info(this.options.stream);
        for (const type of this.options.eventTypes) {
          const info = await this.jsm.consumers.info(this.options.stream, this.consumerName(type));
          if (info.delivered.stream_seq <= stream.state.last_seq) continue;
          await this.jsm.consumers.delete(this.options.stream, this.consumerName(type));
          await this.ensureConsumer(type, restartSequence(info, stream));
        }
      } catch (error) {
        // The stream or a consumer is gone (a server that lost its storage): the loops recreate them.
        this.options.onError?.(error);
      } finally {
        // Restart every pull so each loop re-ensures its consumer against the server as it is now.
        await Promise.all([...this.active].map((messages) => messages.close()));
      }
    }
  }
}

/**
 * Where a consumer that is ahead of its stream starts again. Everything up to its ack floor was
 * handled; above it, only what the stream still holds can come again, the rest is republished by
 * the relay past the new end. A stream created after the consumer (its store was wiped, sequences
 * restarted) says nothing about which of its messages were handled: start from its beginning.
 */
function restartSequence(consumer: ConsumerInfo, stream: StreamInfo): number {
  if (Date.parse(stream.created) > Date.parse(consumer.created)) return 1;
  return Math.min(consumer.ack_floor.stream_seq, stream.state.last_seq) + 1;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The quarantine's view of a wire event; fields a foreign publisher got wrong are made storable. Null: not one of ours. */
function subjectOf(event: WireEvent): QuarantineSubject | null {
  const position = typeof event.stream.position === 'string' && /^\d{1,18}$/.test(event.stream.position) ? event.stream.position : '0';
  const streamId = typeof event.stream.id === 'string' && event.stream.id !== '' ? event.stream.id : 'unknown';
  if (!UUID.test(event.metadata.eventId)) return null;
  return { eventId: event.metadata.eventId, streamId, globalPosition: position, type: event.type || 'unknown' };
}
