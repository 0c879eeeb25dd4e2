import { type RunEvent, RunAttemptStartedEvent, RunOpenedEvent, createEvent, parseRunEvent, runStreamId } from '@onceport/contracts';
import { type RunCommand, type RunState, runDecider } from '@onceport/domain';
import type { Stream, StreamKind } from '../stream-kind';
import { storedEnvelope } from './stored-envelope';

const runKind: StreamKind<RunCommand, RunState, RunEvent> = {
  decider: runDecider,
  read: (stored) => parseRunEvent(storedEnvelope(stored)),
  write: (event, metadata) =>
    event.type === 'RunOpened'
      ? createEvent(RunOpenedEvent, event.data, metadata)
      : createEvent(RunAttemptStartedEvent, event.data, metadata),
  // Short streams, read on every run call: a cached fold reads only what is new.
  cached: true,
};

export type RunStream = Stream<RunCommand, RunState, RunEvent>;

/** The stream of one run (`run-<run id>`, DESIGN.md §7): its trigger and its attempts. */
export function runStream(runId: string): RunStream {
  const id = runStreamId(runId);
  return { id, correlationId: id, kind: runKind };
}
