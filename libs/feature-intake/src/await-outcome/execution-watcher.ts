import { EXECUTION_EVENT_TYPES, executionIdOfStream } from '@onceport/contracts';
import { StoreChangeFeed, type StoredEvent } from '@onceport/event-store';
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

/** Where the watcher hears of a commit before the store's notice (the event delivery's `hear`). */
export type HearCommits = (eventTypes: readonly string[], heard: (streamId: string) => void) => () => void;

export interface ExecutionWatcherOptions {
  /** Hears the events that change an answer as their writers send them: their waiters' read starts then. */
  readonly hear?: HearCommits;
  /** How often the feed reads without a notice; 250 ms. */
  readonly pollIntervalMs?: number;
}

/** What wakes a waiter: the stream version of the change (null: the deadline, a cancel, a shutdown). */
type Wake = (version: number | null) => void;

/**
 * Wakes calls waiting on an execution when its stream grows. The store is the only truth: what the
 * feed read of a watched execution is handed to the followers first (intake folds it: the events are
 * the store's, committed, in order), and a woken waiter answers from that fold or reads the stream.
 */
export class ExecutionWatcher {
  private readonly feed: StoreChangeFeed;
  private readonly waiters = new Map<string, Set<Wake>>();
  private readonly followers: ((executionId: string, events: readonly StoredEvent[]) => void)[] = [];
  /** Set while the process shuts down: no wait lasts past it (see {@link capWaits}). */
  private waitsEndBy = Number.POSITIVE_INFINITY;
  private stopHearing: (() => void) | null = null;

  constructor(
    pool: Pool,
    onError: (error: unknown) => void,
    private readonly options: ExecutionWatcherOptions = {},
  ) {
    this.feed = new StoreChangeFeed(pool, { pollIntervalMs: options.pollIntervalMs ?? 250, onError });
    this.feed.onEvents((events) => {
      const watched = new Map<string, StoredEvent[]>();
      const changedTo = new Map<string, number>();
      for (const event of events) {
        const executionId = executionIdOfStream(event.streamId);
        if (!executionId || !this.waiters.has(executionId)) continue;
        const streamEvents = watched.get(executionId);
        if (streamEvents) streamEvents.push(event);
        else watched.set(executionId, [event]);
        if (CHANGES_THE_ANSWER.has(event.type)) changedTo.set(executionId, event.streamVersion);
      }
      // Followers first: a woken waiter may answer from what they made of these events.
      for (const [executionId, streamEvents] of watched) {
        for (const follow of this.followers) {
          try {
            follow(executionId, streamEvents);
          } catch (error) {
            onError(error); // a follower's failure costs a read, never a wake
          }
        }
      }
      for (const [executionId, version] of changedTo) for (const wake of [...(this.waiters.get(executionId) ?? [])]) wake(version);
    });
  }

  /** `follow` is handed every event the feed reads of an execution someone here waits on, before they are woken. */
  onWatchedEvents(follow: (executionId: string, events: readonly StoredEvent[]) => void): void {
    this.followers.push(follow);
  }

  /**
   * Starts the feed, and hears answer-changing commits: one of an execution someone here waits on
   * wakes the feed at once. The store's notice comes a round trip later, after the writer sent it
   * (the last hop of every call, measured ~2 ms); the feed still reads the store, so a forged or
   * stray message costs a read, never a false answer.
   */
  async start(): Promise<void> {
    await this.feed.start();
    this.stopHearing ??=
      this.options.hear?.([...CHANGES_THE_ANSWER], (streamId) => {
        const executionId = executionIdOfStream(streamId);
        if (executionId && this.waiters.has(executionId)) this.feed.nudge();
      }) ?? null;
  }

  stop(): Promise<void> {
    this.stopHearing?.();
    this.stopHearing = null;
    return this.feed.stop();
  }

  /**
   * Shutting down: every wait, current and future, ends at `endBy` at the latest. The feed keeps
   * running, so a call whose outcome arrives before then still gets it; the rest answer with the
   * state they are in. Waiters are woken now to re-arm with the shorter deadline.
   */
  capWaits(endBy: number): void {
    this.waitsEndBy = Math.min(this.waitsEndBy, endBy);
    for (const waiting of [...this.waiters.values()]) for (const wake of [...waiting]) wake(null);
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
   * Resolves `next` on the next change of the execution (with its stream version), or at the
   * deadline (with null), whichever comes first. `cancel` stops waiting: a caller that got its
   * answer otherwise must not leave a waiter (and a timer) behind until the deadline.
   */
  nextChange(executionId: string, deadline: number): { readonly next: Promise<number | null>; cancel(): void } {
    let cancel = (): void => undefined;
    const next = new Promise<number | null>((resolve) => {
      const set = this.waiters.get(executionId) ?? new Set<Wake>();
      this.waiters.set(executionId, set);
      const done: Wake = (version) => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(executionId) === set) this.waiters.delete(executionId);
        resolve(version);
      };
      const timer = setTimeout(() => done(null), Math.max(0, Math.min(deadline, this.waitsEndBy) - Date.now()));
      set.add(done);
      cancel = () => done(null);
    });
    return { next, cancel };
  }
}
