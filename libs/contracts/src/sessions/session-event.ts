import { type EventEnvelope } from '../events/event';
import { type EventRegistry, type SafeParseEventResult, createEventRegistry } from '../events/event-registry';
import { type SessionGranted, SessionGrantedEvent } from './session-granted.event';

/** Every event of a session stream. */
export type SessionEvent = SessionGranted;
export type SessionEventEnvelope = EventEnvelope<SessionEvent>;

export const sessionEventDefinitions = {
  SessionGranted: SessionGrantedEvent,
} as const satisfies { [Type in SessionEvent['type']]: { readonly type: Type } };

export const sessionEventRegistry: EventRegistry<SessionEventEnvelope> = createEventRegistry(
  Object.values(sessionEventDefinitions).map((current) => ({ current, past: [] })),
);

/**
 * Validates a stored session event and upcasts it to the current schema version. Throws `EventParseError`.
 *
 * @example const grant = sessionGranted((await store.readStream(sessionStreamId(actor, process))).map(parseSessionEvent));
 */
export function parseSessionEvent(raw: unknown): SessionEventEnvelope {
  return sessionEventRegistry.parse(raw);
}

export function safeParseSessionEvent(raw: unknown): SafeParseEventResult<SessionEventEnvelope> {
  return sessionEventRegistry.safeParse(raw);
}
