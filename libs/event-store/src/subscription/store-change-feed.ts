import type { Pool } from 'pg';
import type { StoredEvent } from '../event';
import type { Checkpoint } from './checkpoint';
import { headCheckpoint } from './head-checkpoint';
import { HeldBackBackoff } from './held-back';
import { checkpointOf } from './read-committed-after';
import { sharedNoticesOf } from './shared-notices';
import { sharedTailReadsOf } from './shared-tail-reads';
import { Wakeup } from './wakeup';

/**
 * A live, non-durable view of what is appended from now on, for a process that waits on changes
 * (intake waiting for an execution's outcome). Starts at the head, keeps no checkpoint row, and
 * follows the same late-commit-safe order as durable subscriptions.
 */
export class StoreChangeFeed {
  private readonly wakeup = new Wakeup();
  private readonly heldBack = new HeldBackBackoff();
  private readonly listeners = new Set<(events: readonly StoredEvent[]) => void>();
  private running = false;
  private loop: Promise<void> | null = null;
  private leaveNotices: (() => void) | null = null;
  private checkpoint: Checkpoint | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly options: { pollIntervalMs?: number; batchSize?: number; onError?: (error: unknown) => void } = {},
  ) {}

  onEvents(listener: (events: readonly StoredEvent[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.checkpoint = await headCheckpoint(this.pool);
    this.running = true;
    this.leaveNotices = sharedNoticesOf(this.pool).join(() => this.wakeup.wake());
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeup.wake();
    try {
      await this.loop;
    } finally {
      this.leaveNotices?.();
      this.leaveNotices = null;
    }
  }

  nudge(): void {
    this.wakeup.wake();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await sharedNoticesOf(this.pool).listen();
        this.checkpoint ??= await headCheckpoint(this.pool);
        const { events, more } = await sharedTailReadsOf(this.pool).read(this.checkpoint, this.options.batchSize ?? 1000);
        const last = events[events.length - 1];
        if (!last) {
          await this.wakeup.wait(this.heldBack.waitMs(more, this.options.pollIntervalMs ?? 250));
          continue;
        }
        this.heldBack.reset();
        this.checkpoint = checkpointOf(last);
        for (const listener of this.listeners) listener(events);
        // Nothing more committed before the read: wait for the next notification rather than look again now.
        if (!more) await this.wakeup.wait(this.heldBack.waitMs(false, this.options.pollIntervalMs ?? 250));
      } catch (error) {
        this.options.onError?.(error);
        await this.wakeup.wait(500);
      }
    }
  }
}
