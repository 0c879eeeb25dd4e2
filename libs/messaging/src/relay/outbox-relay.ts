import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { eventSubject } from '@onceport/contracts';
import {
  CHECKPOINT_START,
  type Checkpoint,
  type StoredEvent,
  StoreSubscription,
  checkpointOf,
  loadCheckpoint,
  overwriteCheckpoint,
  saveCheckpoint,
} from '@onceport/event-store';
import type { Pool } from 'pg';
import { type StreamSpec, ensureStream, isNotFound } from '../jetstream/topology';
import { observeRelayLag } from '../metrics/delivery-metrics';
import { type Publication, PublicationLog } from './publication-log';
import { publishEvent } from './publish-event';

export interface OutboxRelayOptions {
  readonly streamName: string;
  /** Recreates the stream if the broker lost it (a server restarted with its storage wiped). */
  readonly streamSpec?: StreamSpec;
  readonly subjectOf?: (event: StoredEvent) => string;
  /** Events of other streams stay in the store (default: publish everything). */
  readonly shouldPublish?: (event: StoredEvent) => boolean;
  readonly batchSize?: number;
  readonly pollIntervalMs?: number;
  /**
   * At most one read of the store per this many ms while events keep coming (default 0: read on
   * every notice). For a relay that backs up writers publishing what they committed themselves.
   */
  readonly batchIntervalMs?: number;
  readonly publishTimeoutMs?: number;
  /** How long acknowledged batches stay rewindable after NATS restarts (cover the server's sync interval). */
  readonly publicationRetentionMs?: number;
  /**
   * How often, at most, what was acknowledged is recorded (the publication and the checkpoint after
   * it). A relay that dies republishes what it had not recorded yet: JetStream stores a message id
   * once, and consumers act on the stream's version, so that costs a repeat, never a second effect.
   */
  readonly recordIntervalMs?: number;
  readonly onError?: (error: unknown) => void;
}

const RELAY_SUBSCRIPTION = 'outbox-relay';
const DEFAULT_RECORD_INTERVAL_MS = 250;

/** Acknowledged, not yet recorded: where the first such batch started, its newest message, and where the last one ended. */
interface Unrecorded {
  readonly publication: Publication | null;
  readonly upTo: Checkpoint;
}

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
  private unrecorded: Unrecorded | null = null;
  private recording: Promise<void> = Promise.resolve();
  private recordTimer: NodeJS.Timeout | null = null;
  private lastRecordedAt = 0;
  /** Moves on each time the lead is let go: a record that fails after that does not put its batches back. */
  private leadGeneration = 0;

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
        // The checkpoint is saved with the publication record, after it: never ahead of it.
        mode: 'handler_saves',
        exclusive: true,
        batchSize: options.batchSize ?? 256,
        pollIntervalMs: options.pollIntervalMs ?? 1000,
        batchIntervalMs: options.batchIntervalMs ?? 0,
        ...(options.onError ? { onError: options.onError } : {}),
        beforeRead: () => this.checkBroker(),
        // Recorded only while leading: a relay that lost the lead leaves its unrecorded batches to the
        // next leader, which publishes them again from the saved checkpoint (JetStream stores them once).
        beforeRelease: () => this.recordPublished(),
        onRelease: () => this.forgetUnrecorded(),
      },
      (events) => this.publish(events),
    );
  }

  start(): void {
    this.statusWatch ??= this.watchConnection();
    this.subscription.start();
  }

  /** Stops after recording what it published, while it still leads. */
  async stop(): Promise<void> {
    await this.subscription.stop();
    this.forgetUnrecorded();
  }

  /** A writer in this process just committed: relay now rather than at the next notification. */
  nudge(): void {
    this.subscription.nudge();
  }

  /** Publishes everything committed so far (tools and tests). */
  async drain(): Promise<number> {
    const published = await this.subscription.drain();
    await this.recordPublished();
    return published;
  }

  private async publish(events: readonly StoredEvent[]): Promise<void> {
    // Any failure below makes the loop re-read from the checkpoint; look at the broker first then.
    this.verifyBroker = true;
    const from = this.subscription.position ?? (await loadCheckpoint(this.pool, RELAY_SUBSCRIPTION));
    const last = events[events.length - 1];
    if (!last) return;
    const subjectOf = this.options.subjectOf ?? ((e: StoredEvent) => eventSubject(e.type, e.schemaVersion));
    const publishable = this.options.shouldPublish ? events.filter(this.options.shouldPublish) : events;
    const timeoutMs = this.options.publishTimeoutMs ?? 5000;
    const acks = await Promise.all(publishable.map((event) => publishEvent(this.js, subjectOf(event), event, timeoutMs)));
    const publishedAt = Date.now();
    for (const event of publishable) observeRelayLag(event.recordedAt, publishedAt);
    const newest = acks.reduce((best, ack, i) => (ack.seq > best.seq ? { seq: ack.seq, i } : best), { seq: 0, i: 0 });
    const publication = newest.seq > 0 ? { streamSequence: newest.seq, eventId: publishable[newest.i]?.eventId ?? '', from } : null;
    this.noteUnrecorded(publication, checkpointOf(last));
    if (publishedAt - this.lastRecordedAt >= this.recordIntervalMs) await this.recordPublished();
    else this.armRecordTimer();
    this.verifyBroker = false;
  }

  /** Records later, while this relay still leads; a record that failed tries again at the next interval. */
  private armRecordTimer(): void {
    this.recordTimer ??= setTimeout(() => {
      this.recordTimer = null;
      if (!this.subscription.leading) return this.forgetUnrecorded();
      this.recordPublished().catch((error: unknown) => {
        this.options.onError?.(error);
        if (this.unrecorded) this.armRecordTimer();
      });
    }, this.recordIntervalMs).unref();
  }

  /** The lead is gone: what was not recorded is the next leader's to publish again, from the saved checkpoint. */
  private forgetUnrecorded(): void {
    if (this.recordTimer) clearTimeout(this.recordTimer);
    this.recordTimer = null;
    this.unrecorded = null;
    this.leadGeneration++;
  }

  private get recordIntervalMs(): number {
    return this.options.recordIntervalMs ?? DEFAULT_RECORD_INTERVAL_MS;
  }

  /** One record covers every batch acknowledged since the last: from where the first began, up to the newest message. */
  private noteUnrecorded(publication: Publication | null, upTo: Checkpoint): void {
    const earlier = this.unrecorded?.publication ?? null;
    const newer = !earlier || (publication && publication.streamSequence > earlier.streamSequence) ? publication : earlier;
    this.unrecorded = { publication: newer && { ...newer, from: earlier?.from ?? newer.from }, upTo };
  }

  /**
   * Records what was acknowledged and not yet recorded: the publication first, then the checkpoint,
   * so the checkpoint never passes a batch the broker could lose unnoticed. One at a time; what
   * fails to be recorded stays noted for the next time.
   */
  private recordPublished(): Promise<void> {
    if (this.recordTimer) clearTimeout(this.recordTimer);
    this.recordTimer = null;
    const record = async () => {
      const noted = this.unrecorded;
      if (!noted) return;
      this.unrecorded = null;
      const generation = this.leadGeneration;
      try {
        const { publication } = noted;
        if (publication) await this.withPublicationLog(() => this.publications.record(publication));
        await saveCheckpoint(this.pool, RELAY_SUBSCRIPTION, noted.upTo);
        this.lastRecordedAt = Date.now();
      } catch (error) {
        // Put back for the next try, unless the lead was let go meanwhile (then it is not ours to record).
        if (generation !== this.leadGeneration) throw error;
        // Noted while this record ran (TypeScript still holds the null set above).
        const since = this.unrecorded as Unrecorded | null;
        this.unrecorded = noted;
        if (since) this.noteUnrecorded(since.publication, since.upTo);
        throw error;
      }
    };
    const recorded = this.recording.then(record);
    this.recording = recorded.catch(() => undefined);
    return recorded;
  }

  /** Before reading on: if the broker no longer holds what it acknowledged, rewind and republish. */
  private async checkBroker(): Promise<void> {
    if (!this.verifyBroker) return;
    // What was acknowledged but not recorded is recorded first, so that a loss of it is seen too.
    await this.recordPublished();
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
