import { type EventEnvelope } from '../events/event';
import { type EventRegistry, type SafeParseEventResult, createEventRegistry } from '../events/event-registry';
import { type RunAttemptStarted, RunAttemptStartedEvent } from './run-attempt-started.event';
import { type RunOpened, RunOpenedEvent } from './run-opened.event';

/** Every event of a run stream. */
export type RunEvent = RunOpened | RunAttemptStarted;
export type RunEventEnvelope = EventEnvelope<RunEvent>;

export const runEventDefinitions = {
  RunOpened: RunOpenedEvent,
  RunAttemptStarted: RunAttemptStartedEvent,
} as const satisfies { [Type in RunEvent['type']]: { readonly type: Type } };

export const runEventRegistry: EventRegistry<RunEventEnvelope> = createEventRegistry(
  Object.values(runEventDefinitions).map((current) => ({ current, past: [] })),
);

/** Validates a stored run event and upcasts it to the current schema version. Throws `EventParseError`. */
export function parseRunEvent(raw: unknown): RunEventEnvelope {
  return runEventRegistry.parse(raw);
}

export function safeParseRunEvent(raw: unknown): SafeParseEventResult<RunEventEnvelope> {
  return runEventRegistry.safeParse(raw);
}
