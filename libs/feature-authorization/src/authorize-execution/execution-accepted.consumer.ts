import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { ExecutionAcceptedEvent } from '@onceport/contracts';
import { ConsumeEvents, type DeliveryContext, type WireEvent } from '@onceport/messaging';
import { AuthorizeExecutionHandler } from './authorize-execution.handler';

/** The durable name every authorization replica shares. */
export const AUTHORIZATION_DURABLE = 'authorization';

/**
 * The thin message controller: ExecutionAccepted in, one decision per execution out. No inbox
 * (`by_stream`): the handler appends with expected versions and decides only an `accepted`
 * execution, so a redelivery finds the decision made and does nothing. Its consumer stops with the
 * app's event transport, after in-flight decisions are acknowledged and before the runtime closes.
 */
@Controller()
export class ExecutionAcceptedConsumer {
  constructor(@Inject(AuthorizeExecutionHandler) private readonly handler: AuthorizeExecutionHandler) {}

  @ConsumeEvents(ExecutionAcceptedEvent.subject, { durable: AUTHORIZATION_DURABLE, inbox: 'by_stream', concurrency: 16 })
  async onExecutionAccepted(@Payload() event: WireEvent, @Ctx() context: DeliveryContext): Promise<void> {
    await this.handler.handle(event, context);
  }
}
