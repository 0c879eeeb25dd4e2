import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type EventConsumer, type OnceportRuntime, RUNTIME } from '@onceport/runtime';
import type { Dispatcher } from '../create-dispatcher';

export const DISPATCHER = Symbol('DISPATCHER');

/**
 * The dispatcher's life in the process: the shared durable consumer starts once the app is up;
 * on shutdown it stops taking triggers while attempts in flight finish and are recorded, and only
 * then does the HTTP channel close (Nest runs every beforeApplicationShutdown before any
 * onApplicationShutdown, where the runtime closes too).
 */
@Injectable()
export class DispatchTriggersConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private consumer: EventConsumer | null = null;

  constructor(
    @Inject(RUNTIME) private readonly runtime: OnceportRuntime,
    @Inject(DISPATCHER) private readonly dispatcher: Dispatcher,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { handler, consumerSpec } = this.dispatcher;
    this.consumer = this.runtime.delivery.consumer(consumerSpec, async (event, context) => {
      await handler.handle(event, context);
    });
    await this.consumer.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.dispatcher.handler.drain();
    await this.consumer?.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.dispatcher.channel.close();
  }
}
