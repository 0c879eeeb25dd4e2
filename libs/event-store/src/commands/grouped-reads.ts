import { refusedForItsValues } from '../errors';
import type { StoredEvent } from '../event';
import type { EventStore, StreamFrom } from '../event-store.port';
import { NextBatch } from '../next-batch';

/** The most stream reads one statement carries. */
const MAX_READS_PER_STATEMENT = 256;

/**
 * Group reads across commands, as `GroupedAppends` groups their appends: while one read is in
 * flight, the reads that arrive meanwhile go together in the next statement. Under load a consumer
 * handles a pull's messages at once, so N commands cost a handful of reads instead of N; a lone
 * read goes at once. Each caller still sees every event committed before it asked: its statement
 * starts after it did.
 */
export class GroupedReads {
  private readonly batches: NextBatch<readonly StreamFrom[], Map<string, StoredEvent[]>>;

  constructor(private readonly store: Pick<EventStore, 'readStream' | 'readStreams'>) {
    this.batches = new NextBatch((reads) => this.readAll(reads), MAX_READS_PER_STATEMENT, refusedForItsValues);
  }

  /** The events of each stream from its version on, by stream id (every stream asked for is a key). */
  read(wanted: readonly StreamFrom[]): Promise<Map<string, StoredEvent[]>> {
    return this.batches.submit(wanted);
  }

  private async readAll(reads: readonly (readonly StreamFrom[])[]): Promise<Map<string, StoredEvent[]>[]> {
    const [alone] = reads;
    if (alone && reads.length === 1) return [await this.readAlone(alone)];
    // Two callers may want one stream from different versions: read it once, from the lower.
    const from = new Map<string, number>();
    for (const { streamId, fromVersion } of reads.flat()) from.set(streamId, Math.min(fromVersion, from.get(streamId) ?? fromVersion));
    const stored = await this.store.readStreams([...from].map(([streamId, fromVersion]) => ({ streamId, fromVersion })));
    return reads.map(
      (wanted) =>
        new Map(
          wanted.map(({ streamId, fromVersion }) => [
            streamId,
            (stored.get(streamId) ?? []).filter((event) => event.streamVersion >= fromVersion),
          ]),
        ),
    );
  }

  private async readAlone(wanted: readonly StreamFrom[]): Promise<Map<string, StoredEvent[]>> {
    const [one] = wanted;
    if (one && wanted.length === 1) return new Map([[one.streamId, await this.store.readStream(one.streamId, one.fromVersion)]]);
    return this.store.readStreams(wanted);
  }
}
