import { type BeforeApplicationShutdown, Controller, Inject, type OnApplicationShutdown } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { DispatchFailedBeforeSendEvent, ExecutionAuthorizedEvent, OutcomeSettledEvent } from '@onceport/contracts';
import { ConsumeEvents, type DeliveryContext, type WireEvent } from '@onceport/messaging';
import { DISPATCHER_DURABLE, type Dispatcher } from '../create-dispatcher';

export const DISPATCHER = Symbol('DISPATCHER');
/** The dispatcher consumer's concurrency and ack wait, known only at start (configuration, contracts' timeouts). */
export const DISPATCH_CONSUMER_SETTINGS = Symbol('DISPATCH_CONSUMER_SETTINGS');

/** One subject per type in DISPATCH_TRIGGER_TYPES. */
const DISPATCH_TRIGGER_SUBJECTS = [ExecutionAuthorizedEvent.subject, OutcomeSettledEvent.subject, DispatchFailedBeforeSendEvent.subject];

/**
 * The dispatcher's message controller: the shared durable consumer takes triggers once the app's
 * event transport is started. On shutdown the handler drains first (a trigger still waiting is
 * refused, so it is delivered again), then the transport stops taking triggers while attempts in
 * flight finish and are recorded (Nest closes transports after every beforeApplicationShutdown),
 * and only then does the HTTP channel close (onApplicationShutdown; the service kit closes the ports after it).
 */
@Controller()
export class DispatchTriggersConsumer implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(@Inject(DISPATCHER) private readonly dispatcher: Dispatcher) {}

  // No inbox: redelivery is made harmless by the stream (only an `authorized` execution is
  // dispatched, and DispatchStarted is appended with its expected version before anything is sent).
  @ConsumeEvents(DISPATCH_TRIGGER_SUBJECTS, {
    durable: DISPATCHER_DURABLE,
    inbox: 'by_stream',
    settingsFrom: DISPATCH_CONSUMER_SETTINGS,
  })
  async onTrigger(@Payload() event: WireEvent, @Ctx() context: DeliveryContext): Promise<void> {
    await this.dispatcher.handler.handle(event, context);
  }

  beforeApplicationShutdown(): void {
    this.dispatcher.handler.drain();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.dispatcher.channel.close(), this.dispatcher.mcp.close()]);
  }
}
