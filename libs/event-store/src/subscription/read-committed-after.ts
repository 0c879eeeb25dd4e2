import type { StoredEvent } from '../event';
import type { Queryable } from '../queryable';
import { STORED_EVENT_COLUMNS, rowToStoredEvent, type StoredEventRow } from '../stored-event-row';
import type { Checkpoint } from './checkpoint';

/**
 * The next events after `checkpoint` whose writing transactions are all finished.
 *
 * `pg_snapshot_xmin(pg_current_snapshot())` is the oldest transaction still running: every row
 * written by an older transaction is already visible (or rolled back), and no transaction that is
 * still open can add a row below that bound. Reading only below it, in (transaction, position)
 * order, is what keeps a late commit from being skipped and an event from being read twice.
 */
export async function readCommittedAfter(db: Queryable, checkpoint: Checkpoint, limit: number): Promise<StoredEvent[]> {
  const result = await db.query<StoredEventRow>(
    `SELECT ${STORED_EVENT_COLUMNS} FROM onceport.events
     WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
       AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY transaction_id, global_position
     LIMIT $3`,
    [String(checkpoint.transactionId), String(checkpoint.globalPosition), limit],
  );
  return result.rows.map(rowToStoredEvent);
}

export function checkpointOf(event: StoredEvent): Checkpoint {
  return { transactionId: event.transactionId, globalPosition: event.globalPosition };
}
