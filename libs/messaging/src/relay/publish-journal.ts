import type { Checkpoint } from '@onceport/event-store';

interface JournalEntry {
  readonly from: Checkpoint;
  readonly maxSequence: number;
  readonly atMs: number;
}

/**
 * What the relay published recently: for each batch, the checkpoint it started from and the
 * highest stream sequence JetStream acknowledged for it. After a NATS restart, a stream whose last
 * sequence is below an acknowledged one lost messages (a server without fsync per message can);
 * the journal says where to republish from.
 */
export class PublishJournal {
  private entries: JournalEntry[] = [];

  constructor(private readonly retentionMs: number) {}

  record(from: Checkpoint, maxSequence: number, nowMs: number): void {
    this.entries.push({ from, maxSequence, atMs: nowMs });
    const horizon = nowMs - this.retentionMs;
    let drop = 0;
    while (drop < this.entries.length - 1 && (this.entries[drop]?.atMs ?? 0) < horizon) drop++;
    if (drop > 0) this.entries = this.entries.slice(drop);
  }

  /**
   * Where to republish from when the stream now ends at `lastSequence`: the start of the oldest
   * batch with a message beyond it, or null when nothing acknowledged is missing.
   */
  rewindPointFor(lastSequence: number): Checkpoint | null {
    const firstLost = this.entries.find((entry) => entry.maxSequence > lastSequence);
    return firstLost ? firstLost.from : null;
  }

  clear(): void {
    this.entries = [];
  }

  get size(): number {
    return this.entries.length;
  }
}
