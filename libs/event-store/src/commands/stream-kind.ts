import { type Event, type EventEnvelope, type EventMetadata } from '@onceport/contracts';
import { type Decider } from '@onceport/domain';
import type { StoredEvent } from '../event';

/** How one kind of stream is folded and written: its decider, and its events' schemas both ways. */
export interface StreamKind<Command, State, E extends Event> {
  readonly decider: Decider<Command, State, E>;
  /** A stored event, validated and upcast to the current schema. */
  readonly read: (stored: StoredEvent) => EventEnvelope<E>;
  /** A decided event at its current schema version, validated on the way in (a producer must not write what readers refuse). */
  readonly write: (event: E, metadata: EventMetadata) => EventEnvelope<E>;
  /**
   * Keep folds of this kind in the handler's cache. Committed events never change and a stream's
   * visible versions have no gaps, so a cached fold plus the events after its version is the whole
   * stream: a load reads only what is new (it still reads, so a change is seen at once).
   */
  readonly cached: boolean;
}

/** One stream: its id, the correlation its events carry by default, and its kind. */
export interface Stream<Command, State, E extends Event> {
  readonly id: string;
  readonly correlationId: string;
  readonly kind: StreamKind<Command, State, E>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any stream at all; its types are read back with the helpers below
export type AnyStream = Stream<any, any, any>;
export type CommandOf<S extends AnyStream> = S extends Stream<infer C, infer _State, infer _E> ? C : never;
export type StateOf<S extends AnyStream> = S extends Stream<infer _C, infer State, infer _E> ? State : never;
export type EventOf<S extends AnyStream> = S extends Stream<infer _C, infer _State, infer E> ? E : never;
export type LoadedOf<S extends AnyStream> = LoadedStream<StateOf<S>, EventOf<S>>;

/** A stream folded. */
export interface LoadedStream<State, E extends Event> {
  readonly state: State;
  /** The stream version the state was folded at: the expected version of the next append. */
  readonly version: number;
  readonly events: readonly EventEnvelope<E>[];
}

/** A stream nobody wrote yet (a new execution): decide on it without reading it. */
export function emptyStream<S extends AnyStream>(stream: S): LoadedOf<S> {
  return { state: stream.kind.decider.initialState(), version: 0, events: [] };
}

/** Folds `stored` (the events after `known.version`) onto a fold already made. */
export function foldOnto<S extends AnyStream>(stream: S, known: LoadedOf<S>, stored: readonly StoredEvent[]): LoadedOf<S> {
  if (stored.length === 0) return known;
  const newer: EventEnvelope<EventOf<S>>[] = stored.map(stream.kind.read);
  let state: StateOf<S> = known.state;
  for (const event of newer) state = stream.kind.decider.evolve(state, event) as StateOf<S>;
  return { state, version: known.version + stored.length, events: [...known.events, ...newer] };
}
