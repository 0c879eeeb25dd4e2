import { EXECUTION_EVENT_TYPES, executionIdOfStream } from '@onceport/contracts';
import { StoreChangeFeed } from '@onceport/event-store';
import type { Pool } from 'pg';

// Waiters wait for an execution to leave the states it passes through on its way to the target
// (accepted, authorized, dispatched); the events that lead into one of those wake nobody usefully. A retry attaching or an answer being delivered changes nothing a waiting call
// would say either; waking fifty waiters for each of fifty attaching retries would make a herd slow.
const LEAVES_WAITERS_WAITING: ReadonlySet<string> = new Set([
  'ExecutionAccepted',
  'ExecutionAuthorized',
  'DispatchStarted',
  'RetryAttached',
  'ResultDelivered',
]);
const CHANGES_THE_ANSWER: ReadonlySet<string> = new Set<string>(EXECUTION_EVENT_TYPES.filter((type) => !LEAVES_WAITERS_WAITING.has(type)));

/**
 * Wakes calls waiting on an execution when its stream grows. The store is the only truth: a
 * woken waiter re-reads the stream; the feed only says "look again".
 */
export class ExecutionWatcher {
  private readonly feed: StoreChangeFeed;
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Set while the process shuts down: no wait lasts past it (see {@link capWaits}). */
  private waitsEndBy = Number.POSITIVE_INFINITY;

  constructor(pool: Pool, onError: (error: unknown) => void) {
    this.feed = new StoreChangeFeed(pool, { pollIntervalMs: 250, onError });
    this.feed.onEvents((events) => {
      for (const event of events) {
        if (!CHANGES_THE_ANSWER.has(event.type)) continue;
        const executionId = executionIdOfStream(event.streamId);
        const waiting = executionId ? this.waiters.get(executionId) : undefined;
        if (!waiting) continue;
        for (const wake of waiting) wake();
      }
    });
  }

  start(): Promise<void> {
    return this.feed.start();
  }

  stop(): Promise<void> {
    return this.feed.stop();
  }

  /**
   * Shutting down: every wait, current and future, ends at `endBy` at the latest. The feed keeps
   * running, so a call whose outcome arrives before then still gets it; the rest answer with the
   * state they are in. Waiters are woken now to re-arm with the shorter deadline.
   */
  capWaits(endBy: number): void {
    this.waitsEndBy = Math.min(this.waitsEndBy, endBy);
    for (const waiting of [...this.waiters.values()]) for (const wake of [...waiting]) wake();
  }

  /** Whether a wait until `deadline` is over (it ends earlier while shutting down). */
  waitIsOver(deadline: number): boolean {
    return Date.now() >= Math.min(deadline, this.waitsEndBy);
  }

  /** This process just appended: look now rather than at the next notification. */
  nudge(): void {
    this.feed.nudge();
  }

  /**
   * Resolves `next` on the next change of the execution, or at the deadline, whichever comes first.
   * `cancel` stops waiting: a caller that got its answer otherwise must not leave a waiter (and a
   * timer) behind until the deadline.
   */
  nextChange(executionId: string, deadline: number): { readonly next: Promise<void>; cancel(): void } {
    let cancel = (): void => undefined;
    const next = new Promise<void>((resolve) => {
      const set = this.waiters.get(executionId) ?? new Set<() => void>();
      this.waiters.set(executionId, set);
      const done = (): void => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(executionId) === set) this.waiters.delete(executionId);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, Math.min(deadline, this.waitsEndBy) - Date.now()));
      set.add(done);
      cancel = done;
    });
    return { next, cancel };
  }
}
