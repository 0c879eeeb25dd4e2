import type { StoredEvent } from '../event';
import type { Queryable } from '../queryable';
import { STORED_EVENT_COLUMNS, rowToStoredEvent, type StoredEventRow } from '../stored-event-row';
import type { Checkpoint } from './checkpoint';

/** What a look at the tail found: the events ready to hand out, and whether more lie beyond that are not yet. */
export interface TailRead {
  readonly events: StoredEvent[];
  /**
   * No event was ready, yet committed events lie beyond the checkpoint: an older transaction
   * (anywhere in the cluster: `pg_snapshot_xmin` is cluster-wide) is still open. Its end sends no
   * NOTIFY unless it wrote events, so a reader that only waited for the next notification would sit
   * until its poll interval: measured, that was a 1 s stall on one call in ten on a shared server.
   */
  readonly heldBack: boolean;
}

/**
 * The next events after `checkpoint` whose writing transactions are all finished, and, in the same
 * statement and snapshot, whether any event lies beyond the checkpoint at all.
 *
 * `pg_snapshot_xmin(pg_current_snapshot())` is the oldest transaction still running: every row
 * written by an older transaction is already visible (or rolled back), and no transaction that is
 * still open can add a row below that bound. Reading only below it, in (transaction, position)
 * order, is what keeps a late commit from being skipped and an event from being read twice.
 *
 * The look beyond is the first row in index order, not EXISTS: the generic plan of a prepared
 * EXISTS (services prepare every statement) expected a match early in a sequential scan, and at
 * the tail there is none, so it read the whole store on every look.
 */
export async function readTail(db: Queryable, checkpoint: Checkpoint, limit: number): Promise<TailRead> {
  const result = await db.query<Partial<StoredEventRow> & { beyond: boolean }>(
    `SELECT look.beyond, ready.*
       FROM (SELECT (SELECT 1 FROM onceport.events
                      WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
                      ORDER BY transaction_id, global_position LIMIT 1) IS NOT NULL AS beyond) AS look
       LEFT JOIN LATERAL (
         SELECT ${STORED_EVENT_COLUMNS}, transaction_id AS tx_order, global_position AS position_order FROM onceport.events
          WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
            AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
          ORDER BY transaction_id, global_position
          LIMIT $3) AS ready ON true
      ORDER BY ready.tx_order, ready.position_order`,
    [String(checkpoint.transactionId), String(checkpoint.globalPosition), limit],
  );
  // No event ready: one row, its event columns null.
  const rows = result.rows.filter((row): row is StoredEventRow & { beyond: boolean } => row.event_id != null);
  return { events: rows.map(rowToStoredEvent), heldBack: rows.length === 0 && result.rows[0]?.beyond === true };
}

/** The next events after `checkpoint` whose writing transactions are all finished (see {@link readTail}). */
export async function readCommittedAfter(db: Queryable, checkpoint: Checkpoint, limit: number): Promise<StoredEvent[]> {
  return (await readTail(db, checkpoint, limit)).events;
}

export function checkpointOf(event: StoredEvent): Checkpoint {
  return { transactionId: event.transactionId, globalPosition: event.globalPosition };
}
