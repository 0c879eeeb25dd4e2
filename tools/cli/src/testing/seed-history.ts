import { executionStreamId } from '@onceport/contracts';
import { type JsonObject, PostgresEventStore, type Queryable } from '@onceport/event-store';

interface RecordedEvent {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: { readonly executionId: string };
  readonly metadata: { readonly eventId: string };
}

/** Appends a recorded execution history to its stream, as the services would have; returns the execution id. */
export async function seedHistory(db: Queryable, history: readonly unknown[]): Promise<string> {
  const events = history as readonly RecordedEvent[];
  const executionId = events[0]?.data.executionId;
  if (!executionId) throw new Error('a history starts with its ExecutionAccepted');
  await new PostgresEventStore(db).append(
    executionStreamId(executionId),
    events.map((e) => ({
      eventId: e.metadata.eventId,
      type: e.type,
      schemaVersion: e.schemaVersion,
      data: e.data as unknown as JsonObject,
      metadata: e.metadata as unknown as JsonObject,
    })),
    { expectedVersion: 'any' },
  );
  return executionId;
}
