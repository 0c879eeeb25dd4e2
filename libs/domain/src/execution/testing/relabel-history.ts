import { randomBytes, randomUUID } from 'node:crypto';
import { newExecutionId } from '../execution-id';

/** What relabelling needs of a recorded event: its execution id and its event id. */
export interface RelabelableEvent {
  readonly data: { readonly executionId: string };
  readonly metadata: { readonly eventId: string };
}

/** A copy of a recorded history's first `count` events under fresh execution and event ids, so test cases never share a stream. */
export function relabelHistory<E extends RelabelableEvent>(events: readonly E[], count: number): { executionId: string; events: E[] } {
  const first = events[0];
  if (!first) throw new Error('empty history');
  const executionId = newExecutionId(Date.now(), randomBytes(10));
  let text = JSON.stringify(events.slice(0, count)).split(first.data.executionId).join(executionId);
  for (const event of events) text = text.split(event.metadata.eventId).join(randomUUID());
  return { executionId, events: JSON.parse(text) as E[] };
}
