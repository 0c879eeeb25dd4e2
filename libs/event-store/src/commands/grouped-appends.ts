import { DatabaseError } from 'pg';
import { DuplicateEventError, WrongExpectedVersionError } from '../errors';
import type { NewEvent } from '../event';
import type { EventStore, StreamAppend } from '../event-store.port';
import { NextBatch } from '../next-batch';

/** A group that names a stream twice, refused before anything is sent: it goes again in halves, in order. */
export class OneStreamTwiceError extends Error {
  constructor() {
    super('GroupedAppends: a group names one stream twice');
  }
}

/** The most streams one statement appends to. */
const MAX_STREAMS_PER_STATEMENT = 256;

/**
 * Group commit across streams for appends that need nothing else in their transaction (a command's
 * events at the version it decided on, a result delivered, a retry attached — each a commit of its
 * own before): while one statement is in flight, the appends that arrive go together in the next
 * one, each at its own expected version. A lone append goes at once. Two appends of one stream in
 * a group (two commands deciding on it at once) go in different statements, in turn: one statement names a stream once.
 */
export class GroupedAppends {
  private readonly batches: NextBatch<StreamAppend, number>;

  constructor(store: EventStore) {
    this.batches = new NextBatch((appends) => appendAll(store, appends), MAX_STREAMS_PER_STATEMENT, refusedByTheStore);
  }

  /** Appends `events` to `streamId` at `expectedVersion`; resolves with the version after them. */
  append(streamId: string, events: readonly NewEvent[], expectedVersion: number): Promise<number> {
    return this.batches.submit({ streamId, events, expectedVersion });
  }
}

async function appendAll(store: EventStore, appends: readonly StreamAppend[]): Promise<number[]> {
  const [alone] = appends;
  if (alone && appends.length === 1) {
    return [(await store.append(alone.streamId, alone.events, { expectedVersion: alone.expectedVersion })).nextExpectedVersion];
  }
  if (new Set(appends.map((append) => append.streamId)).size !== appends.length) throw new OneStreamTwiceError();
  await store.appendTogether(inStreamOrder(appends));
  return appends.map((append) => append.expectedVersion + append.events.length);
}

/** In stream order: two processes grouping the same streams wait on each other's rows in one order, never in a cycle. */
export function inStreamOrder(appends: readonly StreamAppend[]): StreamAppend[] {
  return [...appends].sort((a, b) => (a.streamId < b.streamId ? -1 : a.streamId > b.streamId ? 1 : 0));
}

/**
 * Errors that say one append of a group was refused and nothing was written (a stream moved on, an
 * event id taken, a value refused, a deadlock): it is sent again in halves, and only its caller hears
 * it. Any other (a lost connection, when the group may have committed) fails the whole group.
 */
export function refusedByTheStore(error: unknown): boolean {
  if (error instanceof WrongExpectedVersionError || error instanceof DuplicateEventError || error instanceof OneStreamTwiceError)
    return true;
  return error instanceof DatabaseError && /^(2[23]|40P01)/.test(error.code ?? '');
}
