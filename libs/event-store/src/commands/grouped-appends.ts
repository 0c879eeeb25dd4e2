import type { NewEvent } from '../event';
import type { EventStore } from '../event-store.port';

interface Pending {
  readonly streamId: string;
  readonly events: readonly NewEvent[];
  readonly expectedVersion: number;
  readonly resolve: (nextVersion: number) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit across streams for appends that need nothing else in their transaction (a result
 * delivered, a retry attached — one per execution, each its own commit before): while one statement
 * is in flight, the appends that arrive queue, and the next statement writes them all, each at its
 * own expected version, in one commit. A lone append goes at once: no timer, no added latency.
 *
 * One statement commits all or nothing, so a group that fails (one stream moved on, one bad event)
 * is sent again one append at a time: each caller hears only its own outcome, as if it had been alone.
 */
export class GroupedAppends {
  private queued: Pending[] = [];
  private sending = false;

  constructor(private readonly store: EventStore) {}

  /** Appends `events` to `streamId` at `expectedVersion`; resolves with the version after them. */
  append(streamId: string, events: readonly NewEvent[], expectedVersion: number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.queued.push({ streamId, events, expectedVersion, resolve, reject });
      if (!this.sending) void this.sendQueued();
    });
  }

  private async sendQueued(): Promise<void> {
    this.sending = true;
    try {
      while (this.queued.length > 0) {
        // A statement names each stream once: a second append to a stream waits for the next one.
        const group: Pending[] = [];
        const later: Pending[] = [];
        const streams = new Set<string>();
        for (const pending of this.queued) {
          if (streams.has(pending.streamId)) later.push(pending);
          else {
            streams.add(pending.streamId);
            group.push(pending);
          }
        }
        this.queued = later;
        await this.send(group);
      }
    } finally {
      this.sending = false;
    }
  }

  private async send(group: readonly Pending[]): Promise<void> {
    if (group.length > 1) {
      try {
        await this.store.appendTogether(group.map(({ streamId, events, expectedVersion }) => ({ streamId, events, expectedVersion })));
        for (const pending of group) pending.resolve(pending.expectedVersion + pending.events.length);
        return;
      } catch {
        // Nothing of the group was written: each alone, below, meets its own outcome.
      }
    }
    await Promise.all(
      group.map(({ streamId, events, expectedVersion, resolve, reject }) =>
        this.store.append(streamId, events, { expectedVersion }).then((result) => resolve(result.nextExpectedVersion), reject),
      ),
    );
  }
}
