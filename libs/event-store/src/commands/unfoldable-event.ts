import type { StoredEvent } from '../event';
import type { EventStore } from '../event-store.port';
import type { AnyStream } from './stream-kind';

/** The event a stream's fold stops at, and what it threw. */
export interface UnfoldableEvent {
  readonly event: StoredEvent;
  readonly error: unknown;
}

/**
 * Which event of a stream cannot be folded (read at its schema, or evolved onto the state before
 * it), or null when the whole stream folds. A reader that could not load a stream calls it to name
 * the poison event — to quarantine that event rather than the stream's every later reader failing.
 *
 * @example const poison = await unfoldableEvent(store, executionStream(executionId)); // { event, error } | null
 */
export async function unfoldableEvent(store: Pick<EventStore, 'readStream'>, stream: AnyStream): Promise<UnfoldableEvent | null> {
  let state: unknown = stream.kind.decider.initialState();
  for (const event of await store.readStream(stream.id)) {
    try {
      state = stream.kind.decider.evolve(state, stream.kind.read(event));
    } catch (error) {
      return { event, error };
    }
  }
  return null;
}
