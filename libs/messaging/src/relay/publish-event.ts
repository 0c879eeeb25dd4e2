import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { type PublishableEvent, toWireEvent } from '../wire-event';

/**
 * One stored event on JetStream, the one way every publisher sends it (the outbox relay, and a
 * writer right after its commit): `Nats-Msg-Id` = event id, so however many times and by whomever
 * it is published within the stream's duplicate window, JetStream stores it once.
 */
export function publishEvent(js: JetStreamClient, subject: string, event: PublishableEvent, timeoutMs: number): Promise<PubAck> {
  const headers = natsHeaders();
  headers.set('Onceport-Stream-Id', event.streamId);
  headers.set('Onceport-Stream-Version', String(event.streamVersion));
  for (const key of ['traceparent', 'tracestate'] as const) {
    const value = event.metadata[key];
    if (typeof value === 'string') headers.set(key, value);
  }
  return js.publish(subject, JSON.stringify(toWireEvent(event)), { msgID: event.eventId, headers, timeout: timeoutMs });
}
