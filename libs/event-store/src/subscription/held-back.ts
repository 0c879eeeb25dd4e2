import type { Queryable } from '../queryable';
import type { Checkpoint } from './checkpoint';

/**
 * Whether committed events lie beyond `checkpoint` that `readCommittedAfter` may not hand out yet,
 * because an older transaction (anywhere in the cluster: `pg_snapshot_xmin` is cluster-wide) is
 * still open. Its end sends no NOTIFY unless it wrote events, so a reader that only waited for the
 * next notification would sit until its poll interval: measured, that was a 1 s stall on one call
 * in ten on a shared server.
 */
export async function hasHeldBackEvents(db: Queryable, checkpoint: Checkpoint): Promise<boolean> {
  // Not EXISTS: its generic plan (services prepare every statement) expects a match early in a
  // sequential scan, and at the tail there is none, so it read the whole store on every look. The
  // first row in index order keeps even the generic plan on the tail index.
  const result = await db.query<{ held: boolean }>(
    `SELECT (SELECT 1 FROM onceport.events
       WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
       ORDER BY transaction_id, global_position LIMIT 1) IS NOT NULL AS held`,
    [String(checkpoint.transactionId), String(checkpoint.globalPosition)],
  );
  return result.rows[0]?.held === true;
}

/** Short, growing waits while events are held back (the holder is usually a transaction of a few ms). */
const FIRST_MS = 1;
const MAX_MS = 25;

/**
 * An idle reader's poll interval doubles after each empty look, up to this many times the one it
 * was given: the poll only covers a lost notification (writers notify after every commit), and
 * polling a quiet store at full rate cost each service about 1 % of a core doing nothing.
 */
const IDLE_STRETCH = 8;

export class HeldBackBackoff {
  private nextMs = FIRST_MS;
  private idleStretch = 1;

  /** How long to wait before looking again: a short step while held back, else the (stretching) idle interval. */
  async waitMs(db: Queryable, checkpoint: Checkpoint, idleMs: number): Promise<number> {
    if (!(await hasHeldBackEvents(db, checkpoint))) {
      this.nextMs = FIRST_MS;
      const wait = idleMs * this.idleStretch;
      this.idleStretch = Math.min(this.idleStretch * 2, IDLE_STRETCH);
      return wait;
    }
    const wait = Math.min(this.nextMs, idleMs);
    this.nextMs = Math.min(this.nextMs * 2, MAX_MS);
    return wait;
  }

  /** Events were read: back to short waits and the given idle interval. */
  reset(): void {
    this.nextMs = FIRST_MS;
    this.idleStretch = 1;
  }
}
