import type { INestApplication } from '@nestjs/common';
import type { EventDelivery } from '../delivery/event-delivery.port';
import { InProcessDelivery } from '../delivery/in-process-delivery';
import { JetStreamDelivery } from '../delivery/jetstream-delivery';
import type { EventTransport, ProviderLookup } from './event-transport';
import { InProcessTransport } from './in-process-transport';
import { JetStreamTransport } from './jetstream-transport';

/** The transport strategy for a delivery: JetStream for the services as processes, in-process for the embedded start. */
export function eventTransportFor(delivery: EventDelivery, lookup?: ProviderLookup): EventTransport {
  if (delivery instanceof JetStreamDelivery) return new JetStreamTransport(delivery, lookup);
  if (delivery instanceof InProcessDelivery) return new InProcessTransport(delivery, lookup);
  throw new Error(`no event transport for a ${delivery.kind} delivery of another kind`);
}

/**
 * Connects the app's `@ConsumeEvents` handlers to the process's delivery; they start taking events
 * at `app.startAllMicroservices()` and stop on `app.close()` (before the runtime closes). Not
 * `inheritAppConfig`: the app's global HTTP enhancers (problem details, admin auth) must not judge events.
 *
 * @example connectEventConsumers(app, ports.delivery); await app.init(); await app.startAllMicroservices(); // or startEventConsumers(app, ports.delivery)
 */
export function connectEventConsumers(app: INestApplication, delivery: EventDelivery): EventTransport {
  const strategy = eventTransportFor(delivery, (token) => app.get(token, { strict: false }));
  app.connectMicroservice({ strategy });
  return strategy;
}

/**
 * Connects the handlers and starts them once every module is initialized (its init and bootstrap
 * hooks ran): what a service, the embedded start and a test harness do before `app.listen`.
 */
export async function startEventConsumers(app: INestApplication, delivery: EventDelivery): Promise<EventTransport> {
  const strategy = connectEventConsumers(app, delivery);
  await app.init();
  await app.startAllMicroservices();
  return strategy;
}
