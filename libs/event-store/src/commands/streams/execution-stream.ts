import { type ExecutionEvent, executionEventDefinitions, executionStreamId, parseEvent } from '@onceport/contracts';
import { type ExecutionCommand, type ExecutionState, executionDecider } from '@onceport/domain';
import type { LoadedStream, Stream, StreamKind } from '../stream-kind';
import { storedEnvelope } from './stored-envelope';

const executionKind: StreamKind<ExecutionCommand, ExecutionState, ExecutionEvent> = {
  decider: executionDecider,
  read: (stored) => parseEvent(storedEnvelope(stored)),
  write: (event, metadata) =>
    parseEvent({ type: event.type, schemaVersion: executionEventDefinitions[event.type].schemaVersion, data: event.data, metadata }),
  // A thousand callers attached to one execution each re-read it: folding the whole stream every time made that herd quadratic.
  cached: true,
};

export type LoadedExecution = LoadedStream<ExecutionState, ExecutionEvent>;

export type ExecutionStream = Stream<ExecutionCommand, ExecutionState, ExecutionEvent>;

/** One execution's stream; its events are correlated by the execution id. */
export function executionStream(executionId: string): ExecutionStream {
  return { id: executionStreamId(executionId), correlationId: executionId, kind: executionKind };
}
