import type { InProcessDelivery } from '../delivery/in-process-delivery';
import { EventTransport, type ProviderLookup } from './event-transport';

export const IN_PROCESS_TRANSPORT = Symbol('onceport.in-process');

/** The embedded start (`npm start`): the same handlers, each consumer tailing the store itself; no broker. */
export class InProcessTransport extends EventTransport {
  override readonly transportId = IN_PROCESS_TRANSPORT;

  constructor(
    private readonly inProcess: InProcessDelivery,
    lookup?: ProviderLookup,
  ) {
    super(inProcess, lookup);
  }

  /** The delivery itself: there is no broker to hand out. */
  unwrap<T>(): T {
    return this.inProcess as T;
  }
}
