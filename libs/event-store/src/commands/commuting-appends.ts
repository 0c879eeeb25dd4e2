import { type Event, type EventEnvelope } from '@onceport/contracts';
import { retryOnConflict } from './conflict-retry';
import type { LoadedStream } from './stream-kind';

/** One queued command: what decides it, and the caller waiting for its outcome. */
export interface CommutingCommand<State, E extends Event> {
  /** Decides on the state so far (the queue's earlier commands included); throws what the decider throws. */
  readonly decide: (loaded: LoadedStream<State, E>, now: Date) => Promise<readonly EventEnvelope<E>[]>;
  readonly resolve: (handled: LoadedStream<State, E> & { readonly appended: readonly EventEnvelope<E>[] }) => void;
  readonly reject: (error: unknown) => void;
}

/** What a flush needs from the handler: the stream folded now, its events evolved, and one append at the stream's end. */
export interface CommutingStreamAccess<State, E extends Event> {
  load(): Promise<LoadedStream<State, E>>;
  evolve(state: State, event: EventEnvelope<E>): State;
  /**
   * Appends at the stream's end (commuting events need no expected version; `loadedVersion` is where
   * the stream ended when the batch was decided, the likely place); returns the version after.
   */
  appendAtEnd(events: readonly EventEnvelope<E>[], loadedVersion: number): Promise<number>;
  now(): Date;
}

/**
 * Group commit for commands whose events commute with anything else on a stream (a retry attaching,
 * a result delivered): while one append to a stream is in flight, the commands that arrive for it
 * queue, and the next flush decides them one after the other on one load and appends them all in one
 * commit. A storm of 1,000 identical calls then costs a handful of commits instead of 1,000 taking
 * turns on the stream's lock. A lone command flushes at once: no timer, no added latency.
 */
export class CommutingAppends {
  private readonly queues = new Map<string, CommutingCommand<unknown, Event>[]>();

  enqueue<State, E extends Event>(streamId: string, access: CommutingStreamAccess<State, E>, command: CommutingCommand<State, E>): void {
    const queue = this.queues.get(streamId);
    if (queue) {
      queue.push(command as unknown as CommutingCommand<unknown, Event>);
      return;
    }
    this.queues.set(streamId, [command as unknown as CommutingCommand<unknown, Event>]);
    void this.drain(streamId, access as unknown as CommutingStreamAccess<unknown, Event>);
  }

  /** Flushes what is queued for the stream until nothing new arrived during the last flush. */
  private async drain(streamId: string, access: CommutingStreamAccess<unknown, Event>): Promise<void> {
    for (;;) {
      const batch = this.queues.get(streamId) ?? [];
      if (batch.length === 0) {
        this.queues.delete(streamId);
        return;
      }
      // Commands arriving from now on wait for the next flush.
      this.queues.set(streamId, []);
      await flush(batch, access);
    }
  }
}

/**
 * Decides the batch on one load and appends it in one commit. Commuting events need no expected
 * version, but a writer that does (another service's next step) can still take the stream's next
 * version first: then the batch is loaded and decided again, under the one conflict retry policy.
 * Callers hear only the final outcome.
 */
async function flush(batch: readonly CommutingCommand<unknown, Event>[], access: CommutingStreamAccess<unknown, Event>): Promise<void> {
  let outcome: Decided;
  try {
    outcome = await retryOnConflict(() => decideAndAppend(batch, access));
  } catch (error) {
    for (const command of batch) command.reject(error);
    return;
  }
  for (const { command, error } of outcome.refused) command.reject(error); // refused by the decider: this command only
  // Each caller sees the stream as of its own events (versions counted back from where the append ended).
  const { decided, events, version } = outcome;
  for (const { command, appended, state: after, length } of decided) {
    command.resolve({ state: after, version: version - (events.length - length), events: events.slice(0, length), appended });
  }
}

interface Decided {
  /** What each command decided, and the stream's state and length just after its events. */
  readonly decided: readonly {
    command: CommutingCommand<unknown, Event>;
    appended: readonly EventEnvelope<Event>[];
    state: unknown;
    length: number;
  }[];
  readonly refused: readonly { command: CommutingCommand<unknown, Event>; error: unknown }[];
  readonly events: readonly EventEnvelope<Event>[];
  /** The stream's version after the append. */
  readonly version: number;
}

async function decideAndAppend(
  batch: readonly CommutingCommand<unknown, Event>[],
  access: CommutingStreamAccess<unknown, Event>,
): Promise<Decided> {
  const loaded = await access.load();
  const decided: Decided['decided'][number][] = [];
  const refused: Decided['refused'][number][] = [];
  let state = loaded.state;
  const events: EventEnvelope<Event>[] = [...loaded.events];
  const now = access.now();
  for (const command of batch) {
    try {
      // Each decides on what the ones before it in the batch decided: as if they had run in turn.
      const appended = await command.decide({ state, version: loaded.version + events.length - loaded.events.length, events }, now);
      for (const event of appended) state = access.evolve(state, event);
      events.push(...appended);
      decided.push({ command, appended, state, length: events.length });
    } catch (error) {
      refused.push({ command, error });
    }
  }
  const appending = decided.flatMap((d) => d.appended);
  const version = appending.length > 0 ? await access.appendAtEnd(appending, loaded.version) : loaded.version;
  return { decided, refused, events, version };
}
