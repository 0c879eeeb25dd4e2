import { type EventMetadata } from './event-metadata';

/** An event as a decider emits and folds it: a past-tense type and its data, nothing else. */
export interface Event<Type extends string = string, Data = unknown> {
  readonly type: Type;
  readonly data: Data;
}

/**
 * An event as it is stored and carried on the wire. Distributes over unions, so
 * `EventEnvelope<A | B>` is `EventEnvelope<A> | EventEnvelope<B>` and still narrows on `type`.
 */
export type EventEnvelope<E extends Event = Event> = E extends Event
  ? E & { readonly schemaVersion: number; readonly metadata: EventMetadata }
  : never;
