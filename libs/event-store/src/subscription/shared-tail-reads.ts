import type { Queryable } from '../queryable';
import type { Checkpoint } from './checkpoint';
import { onePerPool } from './one-per-pool';
import { readTail, type TailRead } from './read-committed-after';

/** A read asked for but not sent yet: where it starts, the most any of its readers takes, and its answer. */
interface PendingRead {
  limit: number;
  readonly answer: Promise<TailRead>;
}

/**
 * Looks at the tail once for every reader of one pool that asks from the same place in the same
 * turn of the event loop. One commit wakes every tailing reader of a process at once (its consumers,
 * projections, the intake's feed), and they mostly stand at the same checkpoint: each read alone was
 * about thirty statements per call of `npm start`, most of them finding the same event or nothing.
 *
 * A read is sent at the end of the turn it was asked in (`setImmediate`), so it starts after every
 * request that shares it: it sees all that any of them would have seen alone, and a request made
 * after it was sent waits for a read of its own. Each reader takes the first `limit` events of the
 * answer; what lies beyond them is what its `more` says.
 */
export class SharedTailReads {
  private readonly pending = new Map<string, PendingRead>();

  constructor(private readonly db: Queryable) {}

  read(checkpoint: Checkpoint, limit: number): Promise<TailRead> {
    const key = `${checkpoint.transactionId}:${checkpoint.globalPosition}`;
    const shared = this.pending.get(key) ?? this.send(key, checkpoint, limit);
    shared.limit = Math.max(shared.limit, limit);
    return shared.answer.then(({ events, more }) => ({
      events: events.slice(0, limit),
      more: more || events.length > limit,
    }));
  }

  private send(key: string, checkpoint: Checkpoint, limit: number): PendingRead {
    let sent!: () => void;
    const turnEnded = new Promise<void>((resolve) => (sent = resolve));
    const shared: PendingRead = {
      limit,
      answer: turnEnded.then(() => {
        this.pending.delete(key); // a request from here on was not in time for this read
        return readTail(this.db, checkpoint, shared.limit);
      }),
    };
    this.pending.set(key, shared);
    setImmediate(sent);
    return shared;
  }
}

/** The shared reads of `db`'s tailing readers (one per pool, so every reader of a process shares it). */
export const sharedTailReadsOf = onePerPool((db: Queryable) => new SharedTailReads(db));
