import { EVENTS_OFF_JETSTREAM, executionIdOfStream } from '@onceport/contracts';

/** Only execution streams' events a service acts on are published (by their writers and by the relay alike). */
export function travelsOnJetStream(event: { readonly streamId: string; readonly type: string }): boolean {
  return executionIdOfStream(event.streamId) !== null && !EVENTS_OFF_JETSTREAM.has(event.type);
}

/**
 * A consumer or listener of an event JetStream never carries would wait forever there: refused at
 * its start by every delivery, the in-process one too, so what works under `npm start` works on JetStream.
 */
export function refuseOffJetStream(eventTypes: readonly string[], who: string): void {
  const never = eventTypes.filter((type) => EVENTS_OFF_JETSTREAM.has(type));
  if (never.length > 0) throw new Error(`${who} asks for ${never.join(', ')}, which no service acts on and JetStream never carries`);
}
