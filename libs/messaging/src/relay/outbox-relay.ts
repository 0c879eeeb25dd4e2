import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { eventSubject } from '@onceport/contracts';
import {
  CHECKPOINT_START,
  type Checkpoint,
  type StoredEvent,
  StoreSubscription,
  loadCheckpoint,
  overwriteCheckpoint,
} from '@onceport/event-store';
import type { Pool } from 'pg';
import { type StreamSpec, ensureStream, isNotFound } from '../jetstream/topology';
import { observeRelayLag } from '../metrics/delivery-metrics';
import { toWireEvent } from '../wire-event';
import { type Publication, PublicationLog } from './publication-log';

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
  /** How long acknowledged batches stay rewindable after NATS restarts (cover the server's sync interval). */
  readonly publicationRetentionMs?: number;
  readonly onError?: (error: unknown) => void;
}

const RELAY_SUBSCRIPTION = 'outbox-relay';

/**
 * Publishes every stored event to JetStream with `Nats-Msg-Id` = event id (so a republish is stored
 * once), in store order, and advances its checkpoint only after JetStream acknowledged the batch.
 * One replica relays at a time. Each acknowledged batch is recorded in PostgreSQL; on start, after a
 * reconnect or a failure, the leader checks those records against the stream and republishes what
 * the server lost, even when another relay (or this one before a restart) published it.
 */
export class OutboxRelay {
  private readonly subscription: StoreSubscription;
  private readonly publications: PublicationLog;
  private missingTableReported = false;
  private verifyBroker = true;
  private statusWatch: Promise<void> | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly options: OutboxRelayOptions,
  ) {
    this.publications = new PublicationLog(pool, options.streamName, options.publicationRetentionMs ?? 10 * 60_000);
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
    const publishedAt = Date.now();
    for (const event of publishable) observeRelayLag(event.recordedAt, publishedAt);
    const newest = acks.reduce((best, ack, i) => (ack.seq > best.seq ? { seq: ack.seq, i } : best), { seq: 0, i: 0 });
    const eventId = publishable[newest.i]?.eventId ?? '';
    await this.withPublicationLog(() => this.publications.record({ streamSequence: newest.seq, eventId, from }));
    this.verifyBroker = false;
  }

  /** Before reading on: if the broker no longer holds what it acknowledged, rewind and republish. */
  private async checkBroker(): Promise<void> {
    if (!this.verifyBroker) return;
    const lastSequence = await this.lastSequenceOrRecreate();
    const rewindTo = await this.rewindPoint(lastSequence);
    if (rewindTo) {
      await overwriteCheckpoint(this.pool, RELAY_SUBSCRIPTION, rewindTo);
      this.subscription.forget();
    }
    this.verifyBroker = false;
  }

  /**
   * The newest recorded batch whose last message is still in the stream, under the same event id,
   * is intact (and so is all before it); republish from the batch after it. None intact means the
   * stream was wiped, maybe refilled by others since: republish the whole store. So does an empty
   * stream, even with no records (created anew, or a relay whose records were lost).
   */
  private async rewindPoint(lastSequence: number): Promise<Checkpoint | null> {
    const recorded = (await this.withPublicationLog(() => this.publications.newestFirst())) ?? [];
    let intact = -1;
    for (const [i, publication] of recorded.entries()) {
      if (await this.holds(publication, lastSequence)) {
        intact = i;
        break;
      }
    }
    if (recorded.length === 0 || intact === 0) return lastSequence === 0 ? CHECKPOINT_START : null;
    // Records of what the broker lost would point the next check at the wrong messages: drop them.
    const intactBatch = intact > 0 ? recorded[intact] : undefined;
    await this.withPublicationLog(() => this.publications.forgetAbove(intactBatch?.streamSequence ?? 0));
    // Republish from the start of the oldest lost batch: the one recorded just after the intact one.
    return (intactBatch && recorded[intact - 1]?.from) ?? CHECKPOINT_START;
  }

  private async holds(publication: Publication, lastSequence: number): Promise<boolean> {
    if (publication.streamSequence > lastSequence) return false;
    try {
      const message = await this.jsm.streams.getMessage(this.options.streamName, { seq: publication.streamSequence });
      return message?.header.get('Nats-Msg-Id') === publication.eventId;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /**
   * The records need the `messagingMigrations` table. A service that has not registered it still
   * relays (and rewinds a stream found empty), but says loudly, once, that it can't see a lost tail.
   */
  private async withPublicationLog<T>(work: () => Promise<T>): Promise<T | null> {
    try {
      return await work();
    } catch (error) {
      if ((error as { code?: unknown }).code !== '42P01') throw error;
      if (!this.missingTableReported) {
        this.missingTableReported = true;
        this.options.onError?.(new Error(`outbox relay cannot record publications (register messagingMigrations): ${String(error)}`));
      }
      return null;
    }
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
