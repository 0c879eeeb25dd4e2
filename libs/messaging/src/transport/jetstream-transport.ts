import type { JetStreamDelivery } from '../delivery/jetstream-delivery';
import { EventTransport, type ProviderLookup } from './event-transport';

export const JETSTREAM_TRANSPORT = Symbol('onceport.jetstream');

/** The services as processes: handlers fed by durable JetStream pull consumers (one per event type, shared by replicas). */
export class JetStreamTransport extends EventTransport {
  override readonly transportId = JETSTREAM_TRANSPORT;

  constructor(
    private readonly jetstream: JetStreamDelivery,
    lookup?: ProviderLookup,
  ) {
    super(jetstream, lookup);
  }

  /** The NATS connection (null before the delivery started). */
  unwrap<T>(): T {
    return this.jetstream.connection as T;
  }
}
