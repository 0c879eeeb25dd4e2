import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool, PoolClient } from 'pg';
import type { StoredEvent } from '../event';
import { inTransaction, type Queryable } from '../queryable';
import type { EventQuarantine } from '../quarantine/event-quarantine';
import { type Checkpoint, CheckpointMovedError, advanceCheckpoint, loadCheckpoint, saveCheckpoint } from './checkpoint';
import { HeldBackBackoff } from './held-back';
import { holdLeaderLease } from './leader-lease';
import { checkpointOf, readCommittedAfter } from './read-committed-after';
import { sharedNoticesOf } from './shared-notices';
import { sharedTailReadsOf } from './shared-tail-reads';
import { Wakeup } from './wakeup';

/**
 * `transactional`: the handler gets a transaction that also saves the checkpoint (exactly-once
 * for database effects; keep the handler short, an open writing transaction holds every tail back).
 * `at_least_once`: the handler's effects are elsewhere (e.g. a broker); the checkpoint is saved after.
 * `handler_saves`: as `at_least_once`, but the handler saves the checkpoint itself, when it chooses
 * (with bookkeeping of its own that must never fall behind it); the subscription only keeps its
 * position in memory, and starts again from the saved checkpoint after a failure.
 */
export type SubscriptionMode = 'transactional' | 'at_least_once' | 'handler_saves';

export type BatchHandler = (events: readonly StoredEvent[], tx: Queryable | null) => Promise<void>;

export interface StoreSubscriptionOptions {
  readonly subscriptionId: string;
  readonly mode: SubscriptionMode;
  readonly batchSize?: number;
  /** Poll even without a notification, so a lost NOTIFY only delays. */
  readonly pollIntervalMs?: number;
  /**
   * At most one read per this many ms while events keep coming; notifications in between are
   * folded into the next read. For a reader off the call path (a read model): each batch, and its
   * transaction and checkpoint, then covers every event of the interval instead of one or two.
   */
  readonly batchIntervalMs?: number;
  /**
   * `at_least_once` only: save the checkpoint at most once per this many ms (default 0: after every
   * batch). Between saves the position is kept in memory and saved when the tail runs dry, before the
   * lead is let go, or at the next batch past the interval; a reader that dies meanwhile leaves those
   * batches to be delivered again, which `at_least_once` handlers take anyway. A save is a commit
   * (a WAL flush): one per batch per subscription put several beside every event an embedded start wrote.
   */
  readonly checkpointEveryMs?: number;
  /** Replicas compete for one advisory lock; only the holder reads. */
  readonly exclusive?: boolean;
  /**
   * With `exclusive`: how long a leader that stopped running (frozen, partitioned) keeps the lead
   * before the server ends its session and another replica takes over. Default 15 s.
   */
  readonly leaderLeaseMs?: number;
  readonly retryDelayMs?: number;
  readonly onError?: (error: unknown) => void;
  /** Runs in the loop before each read, while this replica leads (e.g. a relay checking its broker). */
  readonly beforeRead?: () => Promise<void>;
  /** Runs while this replica still leads, before a stopping subscription lets the lead go (`handler_saves`: save now). */
  readonly beforeRelease?: () => Promise<void>;
  /** The lead (or the subscription's connection) was let go — stopped, lost or failed: what the handler kept unsaved is the next reader's to redo. */
  readonly onRelease?: () => void;
  /**
   * An event that keeps failing is quarantined instead of holding every later one back: a failing
   * batch is handled again event by event to find it, its failures are counted, and past the
   * quarantine's limit it is skipped. While leading, the loop also re-applies (through `reapply`)
   * what an operator asked to retry.
   */
  readonly quarantine?: SubscriptionQuarantine;
}

export interface SubscriptionQuarantine {
  readonly register: EventQuarantine;
  /** Applies one event outside the ordered flow (an operator's retry). */
  readonly reapply: (event: StoredEvent) => Promise<void>;
  /** How often the loop looks for retry requests; default 2 s. */
  readonly retryCheckMs?: number;
}

const DEFAULT_LEADER_LEASE_MS = 15_000;
/** Below this the heartbeat (a third of the lease) would hardly leave room for one round trip. */
const MIN_LEADER_LEASE_MS = 300;

/** Tails the store from a durable checkpoint, handing each committed event to the handler once per run. */
/** The advisory lock an `exclusive` subscription's leader holds (on `hashtext` of this name). */
export function leadLockName(subscriptionId: string): string {
  return `onceport-subscription:${subscriptionId}`;
}

export class StoreSubscription {
  private readonly wakeup = new Wakeup();
  private readonly heldBack = new HeldBackBackoff();
  private running = false;
  private loop: Promise<void> | null = null;
  /** Held while this replica reads: the leader lock's session (for `exclusive`); lost, the lead is lost with it. */
  private connection: PoolClient | null = null;
  private leaveNotices: (() => void) | null = null;
  /** The shared LISTEN failed at the last try: nothing will notify, so it looks again soon. */
  private unheard = false;
  private stopLease: (() => void) | null = null;
  private checkpoint: Checkpoint | null = null;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly batchIntervalMs: number;
  private readonly checkpointEveryMs: number;
  /** `at_least_once` with `checkpointEveryMs`: the position handled but not saved yet, and when the last save was. */
  private unsaved: Checkpoint | null = null;
  private savedAt = 0;
  /** Ends the pause between paced reads when the subscription stops. */
  private stopping = new AbortController();
  private readonly retryDelayMs: number;
  private nextRetryCheckAt = 0;
  /** Another replica held the lead at the last try: wait for the poll to try again, whatever is nudged. */
  private standingBy = false;
  private readonly failedHere = new Set<string>();

  constructor(
    private readonly pool: Pool,
    private readonly options: StoreSubscriptionOptions,
    private readonly handler: BatchHandler,
  ) {
    this.batchSize = options.batchSize ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.batchIntervalMs = options.batchIntervalMs ?? 0;
    if (!(Number.isFinite(this.batchIntervalMs) && this.batchIntervalMs >= 0))
      throw new RangeError(
        `StoreSubscription ${options.subscriptionId}: batchIntervalMs must be a number of milliseconds ≥ 0, got ${this.batchIntervalMs}`,
      );
    this.checkpointEveryMs = options.checkpointEveryMs ?? 0;
    if (!(Number.isFinite(this.checkpointEveryMs) && this.checkpointEveryMs >= 0))
      throw new RangeError(
        `StoreSubscription ${options.subscriptionId}: checkpointEveryMs must be a number of milliseconds ≥ 0, got ${this.checkpointEveryMs}`,
      );
    if (this.checkpointEveryMs > 0 && options.mode !== 'at_least_once')
      throw new RangeError(`StoreSubscription ${options.subscriptionId}: checkpointEveryMs is for at_least_once only`);
    // A skipped event moves the checkpoint itself, past whatever such a handler has not saved yet.
    if (options.mode === 'handler_saves' && options.quarantine)
      throw new RangeError(`StoreSubscription ${options.subscriptionId}: handler_saves takes no quarantine`);
    this.retryDelayMs = options.retryDelayMs ?? 500;
    const lease = options.leaderLeaseMs;
    // A lease of NaN or 0 would reach the server as a bad setting and leave no replica leading.
    if (lease !== undefined && !(Number.isFinite(lease) && lease >= MIN_LEADER_LEASE_MS)) {
      throw new RangeError(
        `StoreSubscription ${options.subscriptionId}: leaderLeaseMs must be a number of milliseconds ≥ ${MIN_LEADER_LEASE_MS}, got ${lease}`,
      );
    }
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = new AbortController();
    // Woken by a notice only while holding its connection: not during a retry's pause, nor as a standby.
    this.leaveNotices = sharedNoticesOf(this.pool).join(() => {
      if (this.connection) this.wakeup.wake();
    });
    this.loop = this.run();
  }

  /** Stops after the batch in hand is handled (and checkpointed). */
  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    this.wakeup.wake();
    try {
      await this.loop;
    } finally {
      this.loop = null;
      this.leaveNotices?.();
      this.leaveNotices = null;
    }
  }

  /**
   * Reads now instead of at the next notification or poll (an in-process writer just committed).
   * A replica that does not lead has nothing to read: it keeps to its poll, where it tries for the
   * lead again — not once per append of its process, each a round trip for a lock it will not get.
   */
  nudge(): void {
    if (!this.standingBy) this.wakeup.wake();
  }

  /**
   * Handles everything committed before the call, then returns how many events it handled. For
   * rebuilds, tools and tests; safe beside a running replica in transactional mode (the checkpoint
   * is fenced). A transaction still open anywhere in the cluster holds later commits back (that is
   * what keeps tailing from skipping them), so this waits for it, up to `timeoutMs`.
   */
  async drain(timeoutMs = 10_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    const newest = await this.pool.query<{ tx: string | null }>('SELECT max(transaction_id)::text AS tx FROM onceport.events');
    const target = BigInt(newest.rows[0]?.tx ?? '0');
    let handled = 0;
    for (;;) {
      const from = this.checkpoint ?? (await loadCheckpoint(this.pool, this.options.subscriptionId));
      const events = await readCommittedAfter(this.pool, from, this.batchSize);
      if (events.length > 0) {
        try {
          await this.handle(from, events);
        } catch (error) {
          if (!(error instanceof CheckpointMovedError)) throw error;
          // Another reader (the leader replica, or a rebuild) applied this batch: its rollback left
          // nothing behind; go on from where it got to.
          this.checkpoint = null;
          continue;
        }
        handled += events.length;
        continue;
      }
      if (from.transactionId >= target || Date.now() > deadline) {
        await this.saveUnsaved(); // a drain leaves its position saved, whatever the interval
        return handled;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Drops the in-memory position; the next read starts from the durable checkpoint. */
  forget(): void {
    this.checkpoint = null;
  }

  get position(): Checkpoint | null {
    return this.checkpoint;
  }

  /** Whether this replica holds the lead (for `exclusive`) and its connection now. */
  get leading(): boolean {
    return this.connection !== null;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        if (!(await this.ensureConnected())) {
          await this.wakeup.wait(this.pollIntervalMs);
          continue;
        }
        await this.options.beforeRead?.();
        await this.runRequestedRetries();
        this.checkpoint ??= await loadCheckpoint(this.pool, this.options.subscriptionId);
        const { events, more } = await sharedTailReadsOf(this.pool).read(this.checkpoint, this.batchSize);
        if (events.length === 0) {
          const saveDueInMs = await this.saveUnsavedWhenDue();
          await this.waitForNews(Math.min(saveDueInMs, this.heldBack.waitMs(more, this.pollIntervalMs)));
          continue;
        }
        this.heldBack.reset();
        const readAt = Date.now();
        await this.handle(this.checkpoint, events);
        // More already committed: read on at once. Otherwise everything up to the read was handled,
        // and whatever committed since notified (the wait returns at once if it did meanwhile).
        if (more) continue;
        await this.paceFrom(readAt);
        // Back by the time a kept position is due, to save it if the tail has run dry by then.
        await this.waitForNews(Math.min(this.saveDueInMs(), this.heldBack.waitMs(false, this.pollIntervalMs)));
      } catch (error) {
        this.options.onError?.(error);
        // Forget the in-memory position: whatever failed is re-read from the durable checkpoint.
        this.checkpoint = null;
        this.unsaved = null;
        this.dropConnection(error);
        await this.wakeup.wait(this.retryDelayMs);
      }
    }
    if (this.connection) await this.saveUnsaved().catch((error: unknown) => this.options.onError?.(error));
    if (this.connection) await this.options.beforeRelease?.().catch((error: unknown) => this.options.onError?.(error));
    this.dropConnection(false);
  }

  /** Waits out the rest of the batch interval begun at `readAt` (none by default); a stop ends it. */
  private async paceFrom(readAt: number): Promise<void> {
    const rest = readAt + this.batchIntervalMs - Date.now();
    if (rest <= 0 || !this.running) return;
    await sleep(rest, undefined, { signal: this.stopping.signal }).catch(() => undefined);
  }

  private async handle(from: Checkpoint, events: readonly StoredEvent[]): Promise<void> {
    const quarantine = this.options.quarantine;
    if (!quarantine) return this.handleBatch(from, events);
    if (events.length > 1) {
      try {
        return await this.handleBatch(from, events);
      } catch (error) {
        if (error instanceof CheckpointMovedError) throw error;
      }
    }
    await this.handleOneByOne(from, events, quarantine.register);
  }

  /**
   * The batch failed (or was one event): the same events one at a time, each committed with its checkpoint, so the
   * ones before the failing event stay applied and the failing one is counted alone. Rethrows
   * while it is still to be retried (the loop comes back to it after its retry delay).
   */
  private async handleOneByOne(from: Checkpoint, events: readonly StoredEvent[], register: EventQuarantine): Promise<void> {
    let at = from;
    for (const event of events) {
      try {
        await this.handleBatch(at, [event]);
        if (this.failedHere.delete(event.eventId)) await register.succeeded(event.eventId);
      } catch (error) {
        if (error instanceof CheckpointMovedError) throw error;
        const verdict = await register.failed(event, error);
        this.failedHere.delete(event.eventId);
        if (verdict === 'retry') {
          // Remembered so that its count is cleared once it applies; bounded, a lost entry only leaves a stale count.
          if (this.failedHere.size < 1000) this.failedHere.add(event.eventId);
          throw error;
        }
        await this.skip(at, event);
      }
      at = checkpointOf(event);
    }
  }

  /** Moves the checkpoint past a quarantined event without handling it. */
  private async skip(from: Checkpoint, event: StoredEvent): Promise<void> {
    const next = checkpointOf(event);
    if (this.options.mode === 'transactional') {
      await inTransaction(this.pool, (tx) => advanceCheckpoint(tx, this.options.subscriptionId, from, next));
    } else {
      await saveCheckpoint(this.pool, this.options.subscriptionId, next);
      this.unsaved = null; // behind what was just saved
    }
    this.checkpoint = next;
  }

  private async runRequestedRetries(): Promise<void> {
    const quarantine = this.options.quarantine;
    if (!quarantine || Date.now() < this.nextRetryCheckAt) return;
    this.nextRetryCheckAt = Date.now() + (quarantine.retryCheckMs ?? 2000);
    await quarantine.register.runRetries(quarantine.reapply);
  }

  private async handleBatch(from: Checkpoint, events: readonly StoredEvent[]): Promise<void> {
    const last = events[events.length - 1];
    if (!last) return;
    const next = checkpointOf(last);
    if (this.options.mode === 'transactional') {
      await inTransaction(this.pool, async (tx) => {
        await this.handler(events, tx);
        await advanceCheckpoint(tx, this.options.subscriptionId, from, next);
      });
    } else {
      await this.handler(events, null);
      if (this.options.mode === 'at_least_once') await this.saveAfterBatch(next);
    }
    this.checkpoint = next;
  }

  private async saveAfterBatch(next: Checkpoint): Promise<void> {
    if (Date.now() - this.savedAt < this.checkpointEveryMs) {
      this.unsaved = next;
      return;
    }
    await saveCheckpoint(this.pool, this.options.subscriptionId, next);
    this.savedAt = Date.now();
    this.unsaved = null;
  }

  /** The tail ran dry: saves what is unsaved once the interval is up; else how long until it is (∞: nothing to save). */
  private async saveUnsavedWhenDue(): Promise<number> {
    const dueInMs = this.saveDueInMs();
    if (dueInMs > 0) return dueInMs;
    await this.saveUnsaved();
    return Number.POSITIVE_INFINITY;
  }

  /** How long until a kept position is due to be saved (0: now; ∞: nothing kept). */
  private saveDueInMs(): number {
    if (!this.unsaved) return Number.POSITIVE_INFINITY;
    return Math.max(0, this.savedAt + this.checkpointEveryMs - Date.now());
  }

  /** Saves what `checkpointEveryMs` kept in memory, if anything. */
  private async saveUnsaved(): Promise<void> {
    const unsaved = this.unsaved;
    if (!unsaved) return;
    await saveCheckpoint(this.pool, this.options.subscriptionId, unsaved);
    this.savedAt = Date.now();
    if (this.unsaved === unsaved) this.unsaved = null;
  }

  /**
   * Holds a connection of its own, with the leader lock for `exclusive`, then listens on the pool's
   * shared connection; returns false while another replica leads.
   */
  private async ensureConnected(): Promise<boolean> {
    if (this.connection) return this.listen();
    const client = await this.pool.connect();
    try {
      if (this.options.exclusive) {
        const lock = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [
          leadLockName(this.options.subscriptionId),
        ]);
        this.standingBy = !lock.rows[0]?.locked;
        if (this.standingBy) {
          client.release();
          // A nudge that came while it asked is answered by the answer: it tries again at its poll (a stop's wake stays).
          if (this.running) this.wakeup.clear();
          return false;
        }
      }
      const lost = (error: unknown): void => {
        this.options.onError?.(error);
        if (this.connection === client) this.dropConnection(error);
        this.wakeup.wake();
      };
      client.on('error', lost);
      if (this.options.exclusive)
        this.stopLease = await holdLeaderLease(client, this.options.leaderLeaseMs ?? DEFAULT_LEADER_LEASE_MS, lost);
      this.connection = client;
      // A new leader must start from the durable checkpoint, not from what it last saw.
      this.checkpoint = null;
    } catch (error) {
      this.stopLease?.();
      this.stopLease = null;
      client.release(error instanceof Error ? error : true);
      throw error;
    }
    return this.listen();
  }

  /**
   * Listens on the pool's shared connection before it reads, so no commit after the read goes
   * unnoticed. Failing, it reports and keeps the lead (the connection that failed is not its own): it
   * reads anyway and looks again after its retry delay instead of waiting for a notice.
   */
  private async listen(): Promise<true> {
    try {
      await sharedNoticesOf(this.pool).listen();
      this.unheard = false;
    } catch (error) {
      this.options.onError?.(error);
      this.unheard = true;
    }
    return true;
  }

  /** Waits for a notice, a nudge or `ms`; without a listening connection, no longer than the retry delay. */
  private waitForNews(ms: number): Promise<void> {
    return this.wakeup.wait(this.unheard ? Math.min(ms, this.retryDelayMs) : ms);
  }

  private dropConnection(error: unknown): void {
    const client = this.connection;
    if (!client) return;
    this.connection = null;
    // Whoever leads next starts from the durable checkpoint; an unsaved position is theirs to redo.
    this.unsaved = null;
    this.options.onRelease?.();
    this.stopLease?.();
    this.stopLease = null;
    // Destroying the connection releases the session's advisory lock with it.
    client.release(error === false ? true : error instanceof Error ? error : true);
  }
}
