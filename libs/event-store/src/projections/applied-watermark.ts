import type { StoredEvent } from '../event';
import type { Queryable } from '../queryable';
import { type Checkpoint, CHECKPOINT_START, overwriteCheckpoint, saveCheckpoint } from '../subscription/checkpoint';

/**
 * The newest event a projection has applied, kept apart from its reading checkpoint. The checkpoint
 * says where to read next and can be moved back (an operator's rewind, a restored backup); this
 * mark only moves forward (or to zero with a rebuild), so a rewind re-reads events but never
 * re-applies them, even to a projection whose `apply` is not idempotent.
 *
 * Its row is also the lock a batch and a rebuild both take first: a batch that started before the
 * rebuild commits before the rebuild empties the table (so the DELETE sees its rows), and one that
 * started after sees the mark at zero and is then fenced off by the checkpoint.
 */
export class AppliedWatermark {
  private readonly id: string;

  constructor(projectionName: string) {
    this.id = `projection-applied:${projectionName}`;
  }

  /** Drops events at or below the mark and moves the mark past the rest, inside the batch's transaction. */
  async unapplied(tx: Queryable, events: readonly StoredEvent[]): Promise<readonly StoredEvent[]> {
    const mark = await this.lock(tx);
    const fresh = events.filter((event) => isAfter(event, mark));
    const last = fresh.at(-1);
    if (last) await saveCheckpoint(tx, this.id, { transactionId: last.transactionId, globalPosition: last.globalPosition });
    return fresh;
  }

  /** Back to zero; call it first in the rebuild's transaction (it takes the lock batches take). */
  reset(tx: Queryable): Promise<void> {
    return overwriteCheckpoint(tx, this.id, CHECKPOINT_START);
  }

  /** The mark, its row created at zero if missing and locked for the transaction: one statement (a conflict's update locks the row). */
  private async lock(tx: Queryable): Promise<Checkpoint> {
    const result = await tx.query<{ transaction_id: string; global_position: string }>(
      `INSERT INTO onceport.subscription_checkpoints AS c (subscription_id, transaction_id, global_position)
       VALUES ($1, '0'::xid8, 0)
       ON CONFLICT (subscription_id) DO UPDATE SET subscription_id = c.subscription_id
       RETURNING c.transaction_id::text AS transaction_id, c.global_position::text AS global_position`,
      [this.id],
    );
    const row = result.rows[0];
    return row ? { transactionId: BigInt(row.transaction_id), globalPosition: BigInt(row.global_position) } : CHECKPOINT_START;
  }
}

function isAfter(event: StoredEvent, mark: Checkpoint): boolean {
  return (
    event.transactionId > mark.transactionId || (event.transactionId === mark.transactionId && event.globalPosition > mark.globalPosition)
  );
}
