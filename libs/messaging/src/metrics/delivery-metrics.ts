import { LAG_BUCKETS, processCounter, processHistogram } from '@onceport/event-store';

/*
 * How events travel from the store to the services. Labels are durable consumer names: code
 * constants (`dispatcher`, `authorization`, …), never an event or execution id.
 */
const relayLag = processHistogram({
  name: 'onceport_relay_lag_seconds',
  help: 'Seconds from an event being written to the store to JetStream acknowledging its publication (outbox relay).',
  labelNames: [],
  buckets: LAG_BUCKETS,
});

const redeliveries = processCounter({
  name: 'onceport_consumer_redeliveries_total',
  help: 'JetStream messages delivered again to a durable consumer (a nak, an ack that was lost or came after ack_wait), by consumer.',
  labelNames: ['consumer'],
});

const duplicates = processCounter({
  name: 'onceport_consumer_duplicates_total',
  help: "Events a consumer's inbox had already handled, skipped without running the handler again, by consumer.",
  labelNames: ['consumer'],
});

const directPublishFailures = processCounter({
  name: 'onceport_direct_publish_failures_total',
  help: 'Events a writer could not publish to JetStream right after its commit; the outbox relay publishes them in its turn.',
  labelNames: [],
});

export function countDirectPublishFailure(): void {
  directPublishFailures.inc();
}

export function observeRelayLag(recordedAt: Date, publishedAtMs: number): void {
  relayLag.observe(Math.max(0, (publishedAtMs - recordedAt.getTime()) / 1000));
}

export function countRedelivery(consumer: string): void {
  redeliveries.inc({ consumer });
}

export function countDuplicate(consumer: string): void {
  duplicates.inc({ consumer });
}
