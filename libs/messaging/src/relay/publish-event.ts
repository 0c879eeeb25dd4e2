import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { type MsgHdrs, type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
import { type PublishableEvent, toWireEvent } from '../wire-event';

/** The header that names the event's stream: read without parsing the body (see JetStreamDelivery.hear). */
export const STREAM_ID_HEADER = 'Onceport-Stream-Id';

/**
 * One stored event as a JetStream message, the one way every publisher makes it: `Nats-Msg-Id` =
 * event id, so however many times and by whomever it is published within the stream's duplicate
 * window, JetStream stores it once.
 */
function eventMessage(event: PublishableEvent): { readonly body: string; readonly headers: MsgHdrs } {
  const headers = natsHeaders();
  headers.set('Nats-Msg-Id', event.eventId);
  headers.set(STREAM_ID_HEADER, event.streamId);
  headers.set('Onceport-Stream-Version', String(event.streamVersion));
  for (const key of ['traceparent', 'tracestate'] as const) {
    const value = event.metadata[key];
    if (typeof value === 'string') headers.set(key, value);
  }
  return { body: JSON.stringify(toWireEvent(event)), headers };
}

/** Published and acknowledged: the relay's way, which records what JetStream acknowledged. */
export function publishEvent(js: JetStreamClient, subject: string, event: PublishableEvent, timeoutMs: number): Promise<PubAck> {
  const { body, headers } = eventMessage(event);
  return js.publish(subject, body, { msgID: event.eventId, headers, timeout: timeoutMs });
}

/**
 * Sent without asking for an acknowledgement (no reply inbox, no timer): a writer's way right after
 * its commit, where the relay publishes the same message again in its turn and is the one that
 * makes sure JetStream has it.
 */
export function sendEvent(nc: NatsConnection, subject: string, event: PublishableEvent): void {
  const { body, headers } = eventMessage(event);
  nc.publish(subject, body, { headers });
}
