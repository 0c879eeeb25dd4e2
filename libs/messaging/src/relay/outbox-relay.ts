import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { eventSubject } from '@onceport/contracts';
import { CHECKPOINT_START, type Checkpoint, type StoredEvent, StoreSubscription, loadCheckpoint, overwriteCheckpoint } from '@onceport/event-store';
import type { Pool } from 'pg';
import { type StreamSpec, ensureStream, isNotFound } from '../jetstream/topology';
import { toWireEvent } from '../wire-event';
import { PublishJournal } from './publish-journal';

export interface OutboxRelayOptions {
  readonly streamName: string;
  /** Recreates the stream if the broker lost it (a server restarted with its storage wiped). */
  readonly streamSpec?: StreamSpec;
  readonly subjectOf?: (event: StoredEvent) => string;
  /** Events of other streams stay in the store (default: publish everything). */
  readonly shouldPublish?: (event: StoredEvent) => boolean;
  readonly batchSize?: number;
  readonly pollIntervalMs?: number;
  readonly publishTimeoutMs?: number;
  /** How long published batches stay rewindable after NATS restarts (cover the server's sync interval). */
  readonly journalRetentionMs?: number;
  readonly onError?: (error: unknown) => void;
}

const RELAY_SUBSCRIPTION = 'outbox-relay';

/**
 * Publishes every stored event to JetStream with `Nats-Msg-Id` = event id (so a republish is stored
 * once), in store order, and advances its checkpoint only after JetStream acknowledged the batch.
 * One replica relays at a time. After a reconnect it compares the stream's last sequence with what
 * was acknowledged and republishes what the server lost.
 */
export class OutboxRelay {
  private readonly subscription: StoreSubscription;
  private readonly journal: PublishJournal;
  private verifyBroker = true;
  private statusWatch: Promise<void> | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly options: OutboxRelayOptions,
  ) {
    this.journal = new PublishJournal(options.journalRetentionMs ?? 10 * 60_000);
    this.subscription = new StoreSubscription(
      pool,
      {
        subscriptionId: RELAY_SUBSCRIPTION,
        mode: 'at_least_once',
        exclusive: true,
        batchSize: options.batchSize ?? 256,
        pollIntervalMs: options.pollIntervalMs ?? 1000,
        ...(options.onError ? { onError: options.onError } : {}),
        beforeRead: () => this.checkBroker(),
      },
      (events) => this.publish(events),
    );
  }

  start(): void {
    this.statusWatch ??= this.watchConnection();
    this.subscription.start();
  }

  async stop(): Promise<void> {
    await this.subscription.stop();
  }

  /** A writer in this process just committed: relay now rather than at the next notification. */
  nudge(): void {
    this.subscription.nudge();
  }

  /** Publishes everything committed so far (tools and tests). */
  drain(): Promise<number> {
    return this.subscription.drain();
  }

  private async publish(events: readonly StoredEvent[]): Promise<void> {
    // Any failure below makes the loop re-read from the checkpoint; look at the broker first then.
    this.verifyBroker = true;
    const from = this.subscription.position ?? (await loadCheckpoint(this.pool, RELAY_SUBSCRIPTION));
    const subjectOf = this.options.subjectOf ?? ((e: StoredEvent) => eventSubject(e.type, e.schemaVersion));
    const publishable = this.options.shouldPublish ? events.filter(this.options.shouldPublish) : events;
    if (publishable.length === 0) return;
    const acks = await Promise.all(
      publishable.map((event) => {
        const headers = natsHeaders();
        headers.set('Onceport-Stream-Id', event.streamId);
        headers.set('Onceport-Stream-Version', String(event.streamVersion));
        for (const key of ['traceparent', 'tracestate'] as const) {
          const value = event.metadata[key];
          if (typeof value === 'string') headers.set(key, value);
        }
        return this.js.publish(subjectOf(event), JSON.stringify(toWireEvent(event)), {
          msgID: event.eventId,
          headers,
          timeout: this.options.publishTimeoutMs ?? 5000,
        });
      }),
    );
    this.journal.record(from, Math.max(...acks.map((ack) => ack.seq)), Date.now());
    this.verifyBroker = false;
  }

  /** Before reading on: if the broker came back with fewer messages than it acknowledged, rewind. */
  private async checkBroker(): Promise<void> {
    if (!this.verifyBroker) return;
    const lastSequence = await this.lastSequenceOrRecreate();
    let rewindTo: Checkpoint | null = this.journal.rewindPointFor(lastSequence);
    if (lastSequence === 0) {
      // A stream that never held a message (created anew, or its server's storage was wiped):
      // republish the whole store.
      rewindTo = CHECKPOINT_START;
    }
    if (rewindTo) {
      await overwriteCheckpoint(this.pool, RELAY_SUBSCRIPTION, rewindTo);
      this.subscription.forget();
      this.journal.clear();
    }
    this.verifyBroker = false;
  }

  private async lastSequenceOrRecreate(): Promise<number> {
    try {
      return (await this.jsm.streams.info(this.options.streamName)).state.last_seq;
    } catch (error) {
      if (!isNotFound(error) || !this.options.streamSpec) throw error;
      await ensureStream(this.jsm, this.options.streamSpec);
      return 0;
    }
  }

  private async watchConnection(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'reconnect') {
        this.verifyBroker = true;
        this.subscription.nudge();
      }
    }
  }
}
