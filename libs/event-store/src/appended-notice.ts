import type { Queryable } from './queryable';

/** The channel tailing readers LISTEN on; a notification only says "look again". */
export const EVENTS_CHANNEL = 'onceport_events';

// Transactions (their clients) that appended events and have not committed yet.
const appendedIn = new WeakSet<object>();

/** An append inside the caller's transaction: notify once that transaction commits. */
export function markAppended(tx: Queryable): void {
  appendedIn.add(tx);
}

/** Whether `tx` appended since the last call (and forgets it either way). */
export function takeAppended(tx: Queryable): boolean {
  return appendedIn.delete(tx);
}

/**
 * Wakes tailing readers, after the commit and in a statement of its own. A NOTIFY inside the
 * writing transaction takes a cluster-wide lock that it holds through the commit's WAL flush, so
 * every appending commit queued behind the previous one's fsync: measured on this machine with
 * 16-64 writers, ~300-400 commits/s with the old statement trigger against 3,300-4,600 without.
 * Sent on its own, the NOTIFY has no transaction id and no flush to wait for. If it is lost (the
 * process dies right after the commit) readers find the events at their next poll: it delays, it
 * never loses.
 */
export async function notifyAppended(db: Queryable): Promise<void> {
  await db.query(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`);
}
