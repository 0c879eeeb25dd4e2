import type { AppendResult, ExpectedVersion, NewEvent, StoredEvent } from './event';
import type { Queryable } from './queryable';

export const EVENT_STORE = Symbol('EVENT_STORE');

export interface AppendOptions {
  readonly expectedVersion: ExpectedVersion;
  /** Append inside the caller's transaction (e.g. with a consumer's inbox row). */
  readonly tx?: Queryable;
}

export interface ReadAllOptions {
  /** Exclusive lower bound on the global position; 0n (default) reads from the start. */
  readonly after?: bigint;
  readonly limit?: number;
}

/**
 * The source of truth. Deciders load a stream, fold it, decide, and append with the version they
 * loaded; a `WrongExpectedVersionError` means someone else decided first: reload and decide again.
 */
export interface StreamFrom {
  readonly streamId: string;
  readonly fromVersion: number;
}

/** One stream's part of an `appendTogether`: its events, at the version its writer loaded. */
export interface StreamAppend {
  readonly streamId: string;
  readonly events: readonly NewEvent[];
  readonly expectedVersion: number;
}

/**
 * A statement the appends of an `appendTogether` depend on, run first in the same statement: they
 * are written only if it returns a row (intake taking an in-flight place). Its placeholders are
 * `$1`… for its own `values`.
 */
export interface AppendGuard {
  readonly text: string;
  readonly values: readonly unknown[];
  /**
   * Guards of one kind that can stand as one for several commands' appends (the command handler
   * then groups those commands' statements): `merge` returns a guard that returns a row only if
   * every one of `guards` would have.
   */
  readonly mergeable?: { readonly kind: string; readonly merge: (guards: readonly AppendGuard[]) => AppendGuard };
}

export interface EventStore {
  append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult>;
  /**
   * Several streams' appends in one statement, all or none: each at its expected version (a
   * `WrongExpectedVersionError` names a stream that was not), and, with `onlyIf`, only if its guard
   * returned a row. Returns false when the guard refused (nothing was written).
   */
  appendTogether(appends: readonly StreamAppend[], onlyIf?: AppendGuard): Promise<boolean>;
  readStream(streamId: string, fromVersion?: number): Promise<StoredEvent[]>;
  /** Several streams in one read, each from its own version: the events by stream id (every stream asked for is a key). */
  readStreams(wanted: readonly StreamFrom[]): Promise<Map<string, StoredEvent[]>>;
  /**
   * Reads by global position, for audits and exports. Not for tailing live writes: a position can
   * become visible after a higher one (see `StoreSubscription`).
   */
  readAll(options?: ReadAllOptions): Promise<StoredEvent[]>;
}
