import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { OutcomeUnknownEvent } from '@onceport/contracts';
import { ConsumeEvents, type DeliveryContext, type WireEvent } from '@onceport/messaging';
import { SETTLE_HANDLER } from '../reconciler.tokens';
import type { SettleExecutionHandler } from './settle-execution.handler';

export const RECONCILER_DURABLE = 'reconciler';

/**
 * Settles as soon as a dispatcher reports an unknown outcome; the sweeper catches what this misses.
 * No inbox: settling reads the execution's stream, so a redelivery finds it settled (or settles it).
 */
@Controller()
export class OutcomeUnknownConsumer {
  constructor(@Inject(SETTLE_HANDLER) private readonly settle: SettleExecutionHandler) {}

  @ConsumeEvents(OutcomeUnknownEvent.subject, { durable: RECONCILER_DURABLE, inbox: 'by_stream', concurrency: 16, ackWaitMs: 120_000 })
  async onOutcomeUnknown(@Payload() event: WireEvent, @Ctx() context: DeliveryContext): Promise<void> {
    const executionId = String(event.data['executionId']);
    const traceparent = context.traceparent ?? (typeof event.metadata['traceparent'] === 'string' ? event.metadata['traceparent'] : null);
    await this.settle.settle(executionId, { causationId: event.metadata.eventId, traceparent });
  }
}
