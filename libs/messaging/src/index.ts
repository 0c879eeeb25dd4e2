export { type WireEvent, MalformedWireEventError, parseWireEvent, toWireEvent } from './wire-event';
export { connectToNats } from './jetstream/nats-connection';
export { type ConsumerSpec, type StreamSpec, ensureDurableConsumer, ensureStream, isNotFound } from './jetstream/topology';
export { OutboxRelay, type OutboxRelayOptions } from './relay/outbox-relay';
export { PublishJournal } from './relay/publish-journal';
export type { DeliveryContext, EventHandler, InboxMode } from './consumer/event-handler';
export { JetStreamEventConsumer, type EventConsumerOptions } from './consumer/jetstream-event-consumer';
export { EXECUTION_STREAM_NAME, executionStreamSpec } from './jetstream/execution-stream';
export { claimInInbox, isInInbox } from './consumer/inbox';
