import { type EventRegistry, createEventRegistry, type SafeParseEventResult } from './event-registry';
import { type ExecutionEventEnvelope, executionEventDefinitions } from './execution-event';

/**
 * The read side of execution events. When an event moves to v2, its entry gets
 * `past: [pastVersion(1, DataV1, upcastV1toV2)]` and old streams keep folding.
 */
export const executionEventRegistry: EventRegistry<ExecutionEventEnvelope> = createEventRegistry(
  Object.values(executionEventDefinitions).map((current) => ({ current, past: [] })),
);

/**
 * Validates a stored or received execution event and upcasts it to the current schema version.
 * Throws {@link EventParseError} naming the event type, version and zod path.
 *
 * @example const event = parseEvent(JSON.parse(message.string()));
 */
export function parseEvent(raw: unknown): ExecutionEventEnvelope {
  return executionEventRegistry.parse(raw);
}

/** {@link parseEvent} with the error as a value: `{ success: true, event } | { success: false, error }`. */
export function safeParseEvent(raw: unknown): SafeParseEventResult<ExecutionEventEnvelope> {
  return executionEventRegistry.safeParse(raw);
}
