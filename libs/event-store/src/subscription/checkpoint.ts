import type { Queryable } from '../queryable';

/**
 * Where a tailing reader stands: the last (writer transaction id, global position) it handled.
 * Readers order by this pair, not by position alone, so a row whose transaction committed late
 * is still ahead of the reader when it becomes visible.
 */
export interface Checkpoint {
  readonly transactionId: bigint;
  readonly globalPosition: bigint;
}

export const CHECKPOINT_START: Checkpoint = { transactionId: 0n, globalPosition: 0n };

export async function loadCheckpoint(db: Queryable, subscriptionId: string): Promise<Checkpoint> {
  const result = await db.query<{ transaction_id: string; global_position: string }>(
    `SELECT transaction_id::text AS transaction_id, global_position::text AS global_position
     FROM onceport.subscription_checkpoints WHERE subscription_id = $1`,
    [subscriptionId],
  );
  const row = result.rows[0];
  return row ? { transactionId: BigInt(row.transaction_id), globalPosition: BigInt(row.global_position) } : CHECKPOINT_START;
}

/** Moves the checkpoint forward only: a stale writer can never move it back. */
export async function saveCheckpoint(db: Queryable, subscriptionId: string, checkpoint: Checkpoint): Promise<void> {
  await db.query(
    `INSERT INTO onceport.subscription_checkpoints AS c (subscription_id, transaction_id, global_position)
     VALUES ($1, $2::text::xid8, $3)
     ON CONFLICT (subscription_id) DO UPDATE
       SET transaction_id = excluded.transaction_id, global_position = excluded.global_position, updated_at = now()
       WHERE (c.transaction_id, c.global_position) < (excluded.transaction_id, excluded.global_position)`,
    [subscriptionId, String(checkpoint.transactionId), String(checkpoint.globalPosition)],
  );
}

export async function resetCheckpoint(db: Queryable, subscriptionId: string): Promise<void> {
  await db.query('DELETE FROM onceport.subscription_checkpoints WHERE subscription_id = $1', [subscriptionId]);
}

/** Another reader moved the checkpoint since this batch was read: the batch must not be applied. */
export class CheckpointMovedError extends Error {
  readonly code = 'checkpoint_moved';
  constructor(readonly subscriptionId: string) {
    super(`checkpoint of ${subscriptionId} moved under this reader; its batch was rolled back`);
    this.name = 'CheckpointMovedError';
  }
}

/**
 * Compare-and-set inside the handler's transaction: the batch commits only if the checkpoint is
 * still where the batch was read from, so two readers can never both apply one batch.
 */
export async function advanceCheckpoint(tx: Queryable, subscriptionId: string, from: Checkpoint, to: Checkpoint): Promise<void> {
  const result = await tx.query(
    `INSERT INTO onceport.subscription_checkpoints AS c (subscription_id, transaction_id, global_position)
     VALUES ($1, $4::text::xid8, $5)
     ON CONFLICT (subscription_id) DO UPDATE
       SET transaction_id = excluded.transaction_id, global_position = excluded.global_position, updated_at = now()
       WHERE (c.transaction_id, c.global_position) = ($2::text::xid8, $3::bigint)`,
    [subscriptionId, String(from.transactionId), String(from.globalPosition), String(to.transactionId), String(to.globalPosition)],
  );
  if (result.rowCount !== 1) throw new CheckpointMovedError(subscriptionId);
}

/** Moves the checkpoint anywhere, also backwards: a relay that learns its broker lost messages rewinds. */
export async function overwriteCheckpoint(db: Queryable, subscriptionId: string, to: Checkpoint): Promise<void> {
  await db.query(
    `INSERT INTO onceport.subscription_checkpoints (subscription_id, transaction_id, global_position)
     VALUES ($1, $2::text::xid8, $3)
     ON CONFLICT (subscription_id) DO UPDATE
       SET transaction_id = excluded.transaction_id, global_position = excluded.global_position, updated_at = now()`,
    [subscriptionId, String(to.transactionId), String(to.globalPosition)],
  );
}
