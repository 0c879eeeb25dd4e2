import type { Pool } from 'pg';
import { EventQuarantine, type QuarantineLog } from '../quarantine/event-quarantine';
import { inTransaction } from '../queryable';
import { StoreSubscription } from '../subscription/store-subscription';
import { AppliedWatermark } from './applied-watermark';
import type { Projection } from './projection';

export interface ProjectionRunnerOptions {
  readonly batchSize?: number;
  readonly pollIntervalMs?: number;
  /** At most one batch per this many ms while events keep coming (see `StoreSubscriptionOptions`); default none. */
  readonly batchIntervalMs?: number;
  /** Pause after a failed batch before it is read again (each failure counts towards the quarantine). */
  readonly retryDelayMs?: number;
  readonly onError?: (error: unknown) => void;
  /** Failed attempts before an event is quarantined and skipped; default: the process's setting (5). */
  readonly quarantineAfterAttempts?: number;
  /** Where the quarantine's one line per quarantined event goes; default stderr as JSON. */
  readonly log?: QuarantineLog;
}

/**
 * Keeps one projection up to date; one replica at a time applies (advisory lock + fenced checkpoint).
 * An event the projection cannot apply is quarantined under `projection:<name>` after a few
 * attempts, so the read model keeps following every other event.
 */
export class ProjectionRunner {
  private readonly subscription: StoreSubscription;
  private readonly subscriptionId: string;
  private readonly watermark: AppliedWatermark;
  readonly quarantine: EventQuarantine;

  constructor(
    private readonly pool: Pool,
    private readonly projection: Projection,
    options: ProjectionRunnerOptions = {},
  ) {
    this.subscriptionId = `projection:${projection.name}`;
    this.watermark = new AppliedWatermark(projection.name);
    const { quarantineAfterAttempts, log, ...subscriptionOptions } = options;
    this.quarantine = new EventQuarantine(pool, this.subscriptionId, {
      ...(quarantineAfterAttempts !== undefined ? { afterAttempts: quarantineAfterAttempts } : {}),
      ...(log ? { log } : {}),
    });
    this.subscription = new StoreSubscription(
      pool,
      {
        subscriptionId: this.subscriptionId,
        mode: 'transactional',
        exclusive: true,
        ...subscriptionOptions,
        // A retry bypasses the applied mark on purpose: the mark moved past the event when it was skipped.
        quarantine: { register: this.quarantine, reapply: (event) => inTransaction(pool, (tx) => projection.apply([event], tx)) },
      },
      async (events, tx) => {
        if (!tx) throw new Error('projection handler needs a transaction');
        const unapplied = await this.watermark.unapplied(tx, events);
        if (unapplied.length > 0) await projection.apply(unapplied, tx);
      },
    );
  }

  start(): void {
    this.subscription.start();
  }

  stop(): Promise<void> {
    return this.subscription.stop();
  }

  nudge(): void {
    this.subscription.nudge();
  }

  /** Applies everything committed so far. */
  catchUp(): Promise<number> {
    return this.subscription.drain();
  }

  /**
   * Empties the read model and replays the whole store into it. The applied mark, the reset and the
   * checkpoint move back to zero in one transaction, locked and fenced like any batch, so a running
   * replica can't interleave (a batch of it that commits first is then emptied with the rest).
   */
  async rebuild(): Promise<number> {
    await inTransaction(this.pool, async (tx) => {
      await this.watermark.reset(tx);
      await this.projection.reset(tx);
      await tx.query(
        `INSERT INTO onceport.subscription_checkpoints (subscription_id, transaction_id, global_position)
         VALUES ($1, '0'::xid8, 0)
         ON CONFLICT (subscription_id) DO UPDATE SET transaction_id = '0'::xid8, global_position = 0, updated_at = now()`,
        [this.subscriptionId],
      );
    });
    this.subscription.forget();
    return this.catchUp();
  }
}
