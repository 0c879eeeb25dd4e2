import type { StoredEvent } from '../event';
import type { Queryable } from '../queryable';
import { STORED_EVENT_COLUMNS, rowToStoredEvent, type StoredEventRow } from '../stored-event-row';
import type { Checkpoint } from './checkpoint';

/** What a look at the tail found: the events ready to hand out, and whether more lie beyond them. */
export interface TailRead {
  readonly events: StoredEvent[];
  /**
   * Committed events lie beyond those returned: past the limit, or held back because an older
   * transaction (anywhere in the cluster: `pg_snapshot_xmin` is cluster-wide) is still open. A
   * reader looks again soon: a transaction that ends without writing events sends no NOTIFY, so a
   * reader that only waited for the next notification would sit until its poll interval (measured,
   * that was a 1 s stall on one call in ten on a shared server). Without it, everything committed
   * before the read was returned, and whatever commits later notifies: a reader can wait for that.
   */
  readonly more: boolean;
}

/**
 * The next events after `checkpoint` whose writing transactions are all finished, and, in the same
 * statement and snapshot, how many events lie beyond the checkpoint at all (up to one past the limit).
 *
 * `pg_snapshot_xmin(pg_current_snapshot())` is the oldest transaction still running: every row
 * written by an older transaction is already visible (or rolled back), and no transaction that is
 * still open can add a row below that bound. Reading only below it, in (transaction, position)
 * order, is what keeps a late commit from being skipped and an event from being read twice. The
 * ready events are therefore the first of those beyond the checkpoint in that order: any left over
 * in the count are held back or past the limit.
 *
 * Both walk the tail index in its order, even under a generic plan (services prepare every
 * statement): an EXISTS there was planned as a sequential scan that read the whole store each time.
 */
export async function readTail(db: Queryable, checkpoint: Checkpoint, limit: number): Promise<TailRead> {
  const result = await db.query<Partial<StoredEventRow> & { visible: number }>(
    `SELECT look.visible, ready.*
       FROM (SELECT count(*)::int AS visible FROM (
               SELECT 1 FROM onceport.events
                WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
                ORDER BY transaction_id, global_position LIMIT $3::int + 1) AS beyond) AS look
       LEFT JOIN LATERAL (
         SELECT ${STORED_EVENT_COLUMNS}, transaction_id AS tx_order, global_position AS position_order FROM onceport.events
          WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
            AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
          ORDER BY transaction_id, global_position
          LIMIT $3::int) AS ready ON true
      ORDER BY ready.tx_order, ready.position_order`,
    [String(checkpoint.transactionId), String(checkpoint.globalPosition), limit],
  );
  // No event ready: one row, its event columns null.
  const rows = result.rows.filter((row): row is StoredEventRow & { visible: number } => row.event_id != null);
  return { events: rows.map(rowToStoredEvent), more: (result.rows[0]?.visible ?? 0) > rows.length };
}

/** The next events after `checkpoint` whose writing transactions are all finished (see {@link readTail}). */
export async function readCommittedAfter(db: Queryable, checkpoint: Checkpoint, limit: number): Promise<StoredEvent[]> {
  return (await readTail(db, checkpoint, limit)).events;
}

export function checkpointOf(event: StoredEvent): Checkpoint {
  return { transactionId: event.transactionId, globalPosition: event.globalPosition };
}
