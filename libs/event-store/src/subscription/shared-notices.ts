import type { Pool } from 'pg';
import { EVENTS_CHANNEL } from '../appended-notice';
import { ChannelListener } from './channel-listener';
import { onePerPool } from './one-per-pool';

/** As often as a leader's lease heartbeat (a third of the default 15 s lease): the notices' connection is watched as closely. */
const HEARTBEAT_MS = 5_000;

/**
 * One LISTEN connection for every tailing reader of a pool. With a connection each, one commit's
 * notification reached a process's readers one by one, as each backend got round to sending it, and
 * each woke in a turn of its own; woken in one turn, readers at one checkpoint share one read
 * (`SharedTailReads`). PostgreSQL also signals one listening backend per commit instead of one per reader.
 *
 * A lost connection wakes every reader (those reading look at once, and `listen()` connects again
 * before their next read); a heartbeat finds one lost silently. The last reader to leave closes it,
 * so a pool can end.
 */
export class SharedNotices {
  private readonly listener: ChannelListener;
  private readonly readers = new Set<() => void>();
  private connecting: Promise<void> | null = null;

  constructor(pool: Pool) {
    this.listener = new ChannelListener(
      pool,
      EVENTS_CHANNEL,
      () => this.nudge(),
      () => this.nudge(),
      HEARTBEAT_MS,
    );
  }

  /** `wake` runs on every notice, and when the connection is lost; the returned function leaves. */
  join(wake: () => void): () => void {
    this.readers.add(wake);
    return () => {
      this.readers.delete(wake);
      if (this.readers.size === 0) this.listener.close();
    };
  }

  /** Listens unless it already does: a reader awaits this before it reads, so no commit after its read goes unnoticed. */
  async listen(): Promise<void> {
    if (this.listener.listening) return;
    this.connecting ??= this.listener.listen().finally(() => {
      this.connecting = null;
      if (this.readers.size === 0) this.listener.close(); // everyone left while it connected
    });
    return this.connecting;
  }

  /** Wakes every reader now, as a notice would (an in-process writer just committed: no need to wait for its notice). */
  nudge(): void {
    for (const wake of this.readers) wake();
  }
}

/** The notices of `pool`'s tailing readers (one connection per pool). */
export const sharedNoticesOf = onePerPool((pool: Pool) => new SharedNotices(pool));
