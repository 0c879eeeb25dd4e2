import type { EventStore } from '../event-store.port';
import { type AnyStream, type LoadedOf, emptyStream, foldOnto } from './stream-kind';

/**
 * A stream folded, read whole from the store (no cache): for readers that only look, such as tests
 * and tools. Commands go through the `CommandHandler`, which also folds incrementally.
 *
 * @example const { state } = await loadStream(store, executionStream(executionId));
 */
export async function loadStream<S extends AnyStream>(store: Pick<EventStore, 'readStream'>, stream: S): Promise<LoadedOf<S>> {
  return foldOnto(stream, emptyStream(stream), await store.readStream(stream.id));
}
