import type { Pool } from 'pg';
import { inTransaction } from '../queryable';
import { StoreSubscription } from '../subscription/store-subscription';
import { AppliedWatermark } from './applied-watermark';
import type { Projection } from './projection';

export interface ProjectionRunnerOptions {
  readonly batchSize?: number;
  readonly pollIntervalMs?: number;
  readonly onError?: (error: unknown) => void;
}

/** Keeps one projection up to date; one replica at a time applies (advisory lock + fenced checkpoint). */
export class ProjectionRunner {
  private readonly subscription: StoreSubscription;
  private readonly subscriptionId: string;
  private readonly watermark: AppliedWatermark;

  constructor(
    private readonly pool: Pool,
    private readonly projection: Projection,
    options: ProjectionRunnerOptions = {},
  ) {
    this.subscriptionId = `projection:${projection.name}`;
    this.watermark = new AppliedWatermark(projection.name);
    this.subscription = new StoreSubscription(
      pool,
      { subscriptionId: this.subscriptionId, mode: 'transactional', exclusive: true, ...options },
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
