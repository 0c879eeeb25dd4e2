import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { eventSubject, eventSubjectWildcard } from '@onceport/contracts';
import type { CommittedEvent, StoredEvent } from '@onceport/event-store';
import type { Pool } from 'pg';
import type { EventHandler } from '../consumer/event-handler';
import { JetStreamEventConsumer } from '../consumer/jetstream-event-consumer';
import { EXECUTION_STREAM_NAME, executionStreamSpec } from '../jetstream/execution-stream';
import { connectToNats } from '../jetstream/nats-connection';
import { ensureStream } from '../jetstream/topology';
import { countDirectPublishFailure } from '../metrics/delivery-metrics';
import { OutboxRelay } from '../relay/outbox-relay';
import { STREAM_ID_HEADER, sendEvent } from '../relay/publish-event';
import { toWireEvent } from '../wire-event';
import { type AckWaitSettings, effectiveAckWaitMs } from './ack-wait';
import type { ConsumerSpec, EventConsumer, EventDelivery } from './event-delivery.port';
import { refuseOffJetStream, travelsOnJetStream } from './off-jetstream';

/** Who hears which event types (see `hear`), and their subscriptions once connected. */
interface Hearing {
  readonly eventTypes: readonly string[];
  readonly heard: (streamId: string) => void;
  subscriptions: Subscription[];
}

export interface JetStreamDeliveryOptions {
  readonly natsUrl: string;
  readonly connectionName: string;
  /** 3 against a JetStream cluster. */
  readonly streamReplicas?: number;
  readonly onError: (error: unknown) => void;
  /** Ack wait default and ceiling; read from ONCEPORT_ACK_WAIT_MS / ONCEPORT_ACK_WAIT_MAX_MS when not given. */
  readonly ackWait?: AckWaitSettings;
}

/**
 * How often, at most, the relay reads the store while events keep coming. Writers send what they
 * commit at once (`committed`); the relay publishes it again with an acknowledgement to make sure
 * JetStream has it, so it need not read on every commit: one read per interval covers them all.
 * A message a writer's send lost is this much later, at most.
 */
const RELAY_BATCH_INTERVAL_MS = 100;

/**
 * Distributed delivery: every process runs an outbox relay (one of them is active at a time) and
 * its services' durable consumers. Only execution streams are relayed, and of them only the events
 * a service acts on (not `EVENTS_OFF_JETSTREAM`); other streams (intent claims, vault) and those
 * events are read from the store by whoever needs them. A writer also publishes what it
 * committed itself, at once (`committed`): the relay is then the backstop, not a hop on the path.
 */
export class JetStreamDelivery implements EventDelivery {
  readonly kind = 'jetstream' as const;
  private nc: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private jsm: JetStreamManager | null = null;
  private relay: OutboxRelay | null = null;
  private readonly consumers: JetStreamEventConsumer[] = [];
  private readonly ackWait: AckWaitSettings;
  private readonly hearings = new Set<Hearing>();

  constructor(
    private readonly pool: Pool,
    private readonly options: JetStreamDeliveryOptions,
  ) {
    this.ackWait = options.ackWait ?? {};
  }

  async start(): Promise<void> {
    this.nc = await connectToNats(this.options.natsUrl, this.options.connectionName);
    this.jsm = await jetstreamManager(this.nc);
    this.js = jetstream(this.nc);
    for (const hearing of this.hearings) this.subscribe(hearing);
    await ensureStream(this.jsm, executionStreamSpec(this.options.streamReplicas ?? 1));
    this.relay = new OutboxRelay(this.pool, this.nc, this.js, this.jsm, {
      streamName: EXECUTION_STREAM_NAME,
      streamSpec: executionStreamSpec(this.options.streamReplicas ?? 1),
      onError: this.options.onError,
      shouldPublish: travelsOnJetStream,
      batchIntervalMs: RELAY_BATCH_INTERVAL_MS,
    });
    this.relay.start();
  }

  consumer(spec: ConsumerSpec, handler: EventHandler): EventConsumer {
    if (!this.nc || !this.js || !this.jsm) throw new Error('JetStreamDelivery.start() must run before consumers are made');
    refuseOffJetStream(spec.eventTypes, `the consumer ${spec.durable}`);
    const ackWaitMs = effectiveAckWaitMs(spec.ackWaitMs, this.ackWait);
    const consumer = new JetStreamEventConsumer(
      this.pool,
      this.nc,
      this.js,
      this.jsm,
      {
        stream: EXECUTION_STREAM_NAME,
        durable: spec.durable,
        eventTypes: spec.eventTypes,
        inbox: spec.inbox,
        ...(spec.concurrency ? { concurrency: spec.concurrency } : {}),
        ...(ackWaitMs ? { ackWaitMs } : {}),
        onError: this.options.onError,
      },
      handler,
    );
    this.consumers.push(consumer);
    return consumer;
  }

  async redeliver(event: StoredEvent): Promise<void> {
    if (!this.js) throw new Error('JetStreamDelivery.start() must run first');
    if (!travelsOnJetStream(event)) throw new Error(`${event.type} of ${event.streamId.slice(0, 100)} is not an event JetStream carries`);
    // A new message id on purpose: the original id may still sit in the dedup window.
    await this.js.publish(eventSubject(event.type, event.schemaVersion), JSON.stringify(toWireEvent(event)), {
      msgID: `${event.eventId}:redelivered:${Date.now()}`,
    });
  }

  nudge(): void {
    this.relay?.nudge();
  }

  /**
   * Sends the execution events this process just committed, without waiting for the relay to be
   * woken and read them: that wake-up and read were a third of each hop between services. Sent
   * without an acknowledgement (a request per event cost the writer and the server more than the
   * hop it saved): the relay publishes them again in its turn under the same message ids, and
   * JetStream stores each once (consumers act on the stream's version, so one past the duplicate
   * window is handled once too); one the broker did not get is only late.
   */
  committed(events: readonly CommittedEvent[]): void {
    const nc = this.nc;
    if (!nc || nc.isClosed()) return;
    for (const event of events) {
      if (!travelsOnJetStream(event)) continue;
      try {
        sendEvent(nc, eventSubject(event.type, event.schemaVersion), event);
      } catch {
        countDirectPublishFailure();
      }
    }
  }

  /**
   * Core NATS subscriptions on the events' subjects: every message sent on them reaches every
   * process that hears, the writers' own sends and the relay's repeats alike. Only the stream id
   * header is read, never the body: no parse for an event nobody here waits on.
   */
  hear(eventTypes: readonly string[], heard: (streamId: string) => void): () => void {
    refuseOffJetStream(eventTypes, 'a listener');
    const hearing: Hearing = { eventTypes, heard, subscriptions: [] };
    this.hearings.add(hearing);
    this.subscribe(hearing);
    return () => {
      this.hearings.delete(hearing);
      for (const subscription of hearing.subscriptions) {
        try {
          subscription.unsubscribe();
        } catch {
          // The connection is closing: its subscriptions go with it.
        }
      }
      hearing.subscriptions = [];
    };
  }

  /** Subscribes a hearing once (`start` and `hear` may both try: `hear` during `start`), if the connection takes subscriptions. */
  private subscribe(hearing: Hearing): void {
    const nc = this.nc;
    if (!nc || nc.isClosed() || nc.isDraining() || hearing.subscriptions.length > 0 || !this.hearings.has(hearing)) return;
    try {
      for (const type of hearing.eventTypes) hearing.subscriptions.push(this.subscribeTo(nc, type, hearing));
    } catch (error) {
      this.options.onError(error); // hints lost: the store's notices come all the same
    }
  }

  private subscribeTo(nc: NatsConnection, type: string, hearing: Hearing): Subscription {
    return nc.subscribe(eventSubjectWildcard(type), {
      callback: (error, message) => {
        const streamId = error ? null : message.headers?.get(STREAM_ID_HEADER);
        if (!streamId) return;
        try {
          hearing.heard(streamId);
        } catch (hearError) {
          this.options.onError(hearError); // a hint lost: the store's notice comes all the same
        }
      },
    });
  }

  async stop(): Promise<void> {
    await this.relay?.stop();
    await this.nc?.drain();
  }

  /** The NATS connection; null before `start()`. */
  get connection(): NatsConnection | null {
    return this.nc;
  }

  isReady(): boolean {
    return this.nc !== null && !this.nc.isClosed();
  }
}
