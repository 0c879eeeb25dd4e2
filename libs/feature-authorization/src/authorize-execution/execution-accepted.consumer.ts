import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { type EventConsumer, type OnceportRuntime, RUNTIME } from '@onceport/runtime';
import { AuthorizeExecutionHandler } from './authorize-execution.handler';

/** The durable name every authorization replica shares. */
export const AUTHORIZATION_DURABLE = 'authorization';

/**
 * The thin message controller: ExecutionAccepted in, one decision per execution out. `record_after`
 * inbox: the handler appends with expected versions and decides only an `accepted` execution, so a
 * redelivery after a crash between append and inbox row is a no-op.
 */
@Injectable()
export class ExecutionAcceptedConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private consumer: EventConsumer | null = null;

  constructor(
    @Inject(RUNTIME) private readonly runtime: OnceportRuntime,
    @Inject(AuthorizeExecutionHandler) private readonly handler: AuthorizeExecutionHandler,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.consumer = this.runtime.delivery.consumer(
      { durable: AUTHORIZATION_DURABLE, eventTypes: ['ExecutionAccepted'], inbox: 'record_after', concurrency: 16 },
      async (event, context) => {
        await this.handler.handle(event, context);
      },
    );
    await this.consumer.start();
  }

  /** In-flight decisions finish (and are acknowledged) before the runtime closes the pool. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = null;
  }
}
