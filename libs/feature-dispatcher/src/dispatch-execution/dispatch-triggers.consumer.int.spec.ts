import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { startEventConsumers } from '@onceport/messaging';
import { waitFor } from '@onceport/messaging/testing';
import { type ServicePorts, openServicePorts } from '@onceport/service-kit';
import { DispatchHarness } from '../../test/dispatch-harness';
import { createDispatcher } from '../create-dispatcher';
import { SecretScrubber } from '../secrets/secret-scrubber';
import { DISPATCHER, DISPATCH_CONSUMER_SETTINGS, DispatchTriggersConsumer } from './dispatch-triggers.consumer';

describe('DispatchTriggersConsumer on the embedded (in-process) delivery (real PostgreSQL, real HTTP)', () => {
  let harness: DispatchHarness;
  let runtime: ServicePorts;

  beforeEach(async () => {
    harness = await DispatchHarness.start();
    harness.target.setBehavior({ honour_idempotency: false });
    runtime = await openServicePorts({
      serviceName: 'dispatcher',
      databaseUrl: harness.db.url,
      delivery: 'in_process',
      natsUrl: 'nats://127.0.0.1:1',
      poolSize: 4,
      log: () => undefined,
    });
  });
  afterEach(async () => {
    await runtime.close();
    await harness.close();
  });

  it('dispatches what the store says was authorized, and on shutdown lets the attempt in flight be recorded', async () => {
    const dispatcher = createDispatcher({
      commands: runtime.commands,
      results: runtime.results,
      tracer: runtime.tracer,
      contracts: harness.contracts,
      config: { dispatcherId: 'embedded', concurrency: 4, leaseMs: 60_000, retries: 1, retryBackoffMs: 10 },
      credentials: { resolve: () => 'embedded-secret' },
      secrets: new SecretScrubber(['embedded-secret']),
      sealer: harness.sealer,
      log: () => undefined,
      onAppended: () => runtime.delivery.nudge(),
    });
    @Module({
      controllers: [DispatchTriggersConsumer],
      providers: [
        { provide: DISPATCHER, useValue: dispatcher },
        { provide: DISPATCH_CONSUMER_SETTINGS, useValue: dispatcher.consumerSettings },
      ],
    })
    class DispatcherService {}
    const app = await NestFactory.create(DispatcherService, { logger: false });
    await startEventConsumers(app, runtime.delivery);
    const quick = await harness.seed();
    runtime.delivery.nudge();
    await waitFor(async () => (await harness.status(quick)) === 'completed_result_not_delivered', 20_000, 'the first dispatch');

    // Held long enough that the stop below comes while the dispatch is in flight, on a loaded machine too.
    harness.target.setBehavior({ route: 'deployments', delay_ms: 6_000, times: 1 });
    const slow = await harness.seed();
    runtime.delivery.nudge();
    await waitFor(
      async () => (await harness.events(slow)).some((e) => e.type === 'DispatchStarted'),
      20_000,
      'the second dispatch to start',
    );
    const stoppingAt = Date.now();
    // Drain, stop the transport (the attempt in flight finishes and is recorded), close the channel.
    await app.close();

    expect(await harness.status(slow)).toBe('completed_result_not_delivered');
    const observed = (await harness.events(slow)).at(-1);
    expect(observed?.type === 'OutcomeObserved' && Date.parse(observed.data.observedAt)).toBeGreaterThan(stoppingAt);
    expect(harness.target.effectCount()).toBe(2);
  });
});
