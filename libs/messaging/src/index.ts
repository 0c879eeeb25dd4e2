export { type WireEvent, MalformedWireEventError, parseWireEvent, toWireEvent } from './wire-event';
export { connectToNats } from './jetstream/nats-connection';
export {
  type DurableConsumerSpec,
  ConsumerFilterConflictError,
  type StreamSpec,
  ensureDurableConsumer,
  ensureStream,
  isNotFound,
} from './jetstream/topology';
export { OutboxRelay, type OutboxRelayOptions } from './relay/outbox-relay';
export { PublicationLog, type Publication } from './relay/publication-log';
export { messagingMigrations } from './migrations';
export type { DeliveryContext, EventHandler, InboxMode } from './consumer/event-handler';
export { JetStreamEventConsumer, type EventConsumerOptions } from './consumer/jetstream-event-consumer';
export { EXECUTION_STREAM_NAME, executionStreamSpec } from './jetstream/execution-stream';
export { claimInInbox, deliverUnderInbox, isInInbox } from './consumer/inbox';
export type { ConsumerSpec, EventConsumer, EventDelivery } from './delivery/event-delivery.port';
export { InProcessDelivery } from './delivery/in-process-delivery';
export { JetStreamDelivery, type JetStreamDeliveryOptions } from './delivery/jetstream-delivery';
export { StoreTailEventConsumer } from './delivery/store-tail-event-consumer';
export { type AckWaitSettings, ackWaitEnvShape, ackWaitOf, effectiveAckWaitMs } from './delivery/ack-wait';
export { CONSUMER_OPTIONS, ConsumeEvents, type ConsumerOptions, type ConsumerSettings } from './transport/consume-events.decorator';
export { EventTransport, type ProviderLookup } from './transport/event-transport';
export { JETSTREAM_TRANSPORT, JetStreamTransport } from './transport/jetstream-transport';
export { IN_PROCESS_TRANSPORT, InProcessTransport } from './transport/in-process-transport';
export { connectEventConsumers, eventTransportFor, startEventConsumers } from './transport/connect-event-consumers';
