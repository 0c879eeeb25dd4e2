import type { Queryable } from './queryable';

/** The channel tailing readers LISTEN on; a notification only says "look again". */
export const EVENTS_CHANNEL = 'onceport_events';

// Transactions (their clients) that appended events and have not committed yet, with who to tell once they have.
const appendedIn = new WeakMap<object, Array<() => void>>();

/** An append inside the caller's transaction: notify (and run `committed`) once that transaction commits. */
export function markAppended(tx: Queryable, committed?: () => void): void {
  const told = appendedIn.get(tx) ?? [];
  if (committed) told.push(committed);
  appendedIn.set(tx, told);
}

/** What `tx`'s appends since the last call want done after its commit (null: it appended nothing); forgets them either way. */
export function takeAppended(tx: Queryable): Array<() => void> | null {
  const told = appendedIn.get(tx) ?? null;
  appendedIn.delete(tx);
  return told;
}

/**
 * The least time between two notices of one pool. A notice is a round trip and a wake of every
 * listening process; the readers on a call's path are told otherwise (writers send what they commit
 * to the broker, and hand it to their own process's consumers), so the tails it wakes are backstops
 * and read models that pace their reads anyway.
 */
export const NOTICE_SPACING_MS = 50;

/** One pool's notices: whether one is being sent, whether another commit came meanwhile, when the last went. */
interface NoticeState {
  sending: boolean;
  again: boolean;
  sentAt: number;
}

const notices = new WeakMap<Queryable, NoticeState>();

/**
 * Wakes tailing readers, after the commit and in a statement of its own. A NOTIFY inside the
 * writing transaction takes a cluster-wide lock that it holds through the commit's WAL flush, so
 * every appending commit queued behind the previous one's fsync: measured on this machine with
 * 16-64 writers, ~300-400 commits/s with the old statement trigger against 3,300-4,600 without.
 *
 * A NOTIFY takes a transaction id, so on its own it is a commit too: one after each append was five
 * of an execution's eighteen writing commits. Its commit waits for no WAL flush, though (it wrote no
 * WAL of its own: 200 notices cost the local server 1 WAL sync, 200 one-row inserts 200), so turning
 * `synchronous_commit` off for it changed nothing (measured: WAL flushes per execution 7.40 → 7.36).
 * Notices are coalesced per pool all the same:
 * while one is being sent, and until `NOTICE_SPACING_MS` after it, the commits that come share the
 * next one, which starts after them — every commit is still followed by a notice, the first after a
 * quiet spell at once. The writer does not wait for it. If it is lost (the process dies right after
 * the commit) readers find the events at their next poll: it delays, it never loses.
 */
export function notifyAppended(db: Queryable): void {
  const state = notices.get(db) ?? { sending: false, again: false, sentAt: Number.NEGATIVE_INFINITY };
  notices.set(db, state);
  if (state.sending) {
    state.again = true;
    return;
  }
  state.sending = true;
  void (async () => {
    try {
      do {
        // A monotonic clock: a wall clock stepped back would hold every notice of the pool until it caught up.
        const spacing = Math.min(NOTICE_SPACING_MS, state.sentAt + NOTICE_SPACING_MS - performance.now());
        if (spacing > 0) await new Promise((resolve) => setTimeout(resolve, spacing));
        state.again = false;
        state.sentAt = performance.now();
        await db.query(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`);
      } while (state.again);
    } catch (error) {
      void error; // committed already; readers poll
    } finally {
      state.sending = false;
    }
  })();
}
