import type { Queryable } from '../queryable';
import type { Checkpoint } from './checkpoint';
import { CHECKPOINT_START } from './checkpoint';

/** The checkpoint of the newest event every reader can already see: where a live-only reader starts. */
export async function headCheckpoint(db: Queryable): Promise<Checkpoint> {
  // The columns, not the text aliases of the same names: sorted as text, '99' is newer than '100'.
  const result = await db.query<{ transaction_id: string; global_position: string }>(
    `SELECT transaction_id::text AS transaction_id, global_position::text AS global_position FROM onceport.events
     WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY events.transaction_id DESC, events.global_position DESC LIMIT 1`,
  );
  const row = result.rows[0];
  return row ? { transactionId: BigInt(row.transaction_id), globalPosition: BigInt(row.global_position) } : CHECKPOINT_START;
}
