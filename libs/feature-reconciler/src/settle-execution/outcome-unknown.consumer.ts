import { Inject, Injectable, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { type EventConsumer, type OnceportRuntime, RUNTIME } from '@onceport/runtime';
import { SETTLE_HANDLER } from '../reconciler.tokens';
import type { SettleExecutionHandler } from './settle-execution.handler';

export const RECONCILER_DURABLE = 'reconciler';

/** Settles as soon as a dispatcher reports an unknown outcome; the sweeper catches what this misses. */
@Injectable()
export class OutcomeUnknownConsumer implements OnModuleInit, BeforeApplicationShutdown {
  private consumer: EventConsumer | null = null;

  constructor(
    @Inject(RUNTIME) private readonly runtime: OnceportRuntime,
    @Inject(SETTLE_HANDLER) private readonly settle: SettleExecutionHandler,
  ) {}

  async onModuleInit(): Promise<void> {
    this.consumer = this.runtime.delivery.consumer({ durable: RECONCILER_DURABLE, eventTypes: ['OutcomeUnknown'], inbox: 'record_after', concurrency: 16, ackWaitMs: 120_000 }, async (event, context) => {
      const executionId = String(event.data['executionId']);
      await this.settle.settle(executionId, { causationId: event.metadata.eventId, traceparent: context.traceparent ?? (typeof event.metadata['traceparent'] === 'string' ? event.metadata['traceparent'] : null) });
    });
    await this.consumer.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
  }
}
