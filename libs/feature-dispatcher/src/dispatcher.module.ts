import { type DynamicModule, Module } from '@nestjs/common';
import type { Tracer } from '@opentelemetry/api';
import { loadToolContracts } from '@onceport/config';
import type { CommandHandler, ResultStore } from '@onceport/event-store';
import type { EventDelivery } from '@onceport/messaging';
import {
  AesGcmArgumentSealer,
  COMMAND_HANDLER,
  EVENT_DELIVERY,
  type FeatureModuleOptions,
  RESULT_STORE,
  SERVICE_CONFIG,
  type ServiceConfig,
  TRACER,
} from '@onceport/service-kit';
import { TargetChannels } from '@onceport/target-channels';
import { reportUpstreamDrift } from './upstreams/report-upstream-drift';
import { type Dispatcher, createDispatcher } from './create-dispatcher';
import { type DispatcherEnv, dispatcherConfigFrom } from './dispatcher.config';
import { DISPATCHER, DISPATCH_CONSUMER_SETTINGS, DispatchTriggersConsumer } from './dispatch-execution/dispatch-triggers.consumer';
import { jsonLinesLog } from './logging/dispatcher-log';
import { SecretScrubber } from './secrets/secret-scrubber';

export type DispatcherModuleOptions = FeatureModuleOptions<DispatcherEnv>;

/**
 * The dispatcher service (DESIGN.md §8): consumes ExecutionAuthorized and re-dispatch orders,
 * appends DispatchStarted before any byte leaves, sends through the HTTP channel with the
 * credential only it holds, and records what came of it. Needs `ServiceKitModule` in the same app.
 *
 * @example DispatcherModule.forRoot({ env, contractsDir, environment: process.env })
 */
@Module({})
export class DispatcherModule {
  static forRoot({ env, contractsDir, environment }: DispatcherModuleOptions): DynamicModule {
    return {
      module: DispatcherModule,
      controllers: [DispatchTriggersConsumer],
      providers: [
        {
          provide: DISPATCHER,
          inject: [SERVICE_CONFIG, COMMAND_HANDLER, RESULT_STORE, TRACER, EVENT_DELIVERY],
          useFactory: async (
            config: ServiceConfig,
            commands: CommandHandler,
            results: ResultStore,
            tracer: Tracer,
            delivery: EventDelivery,
          ): Promise<Dispatcher> => {
            // Loaded once at start: a contract problem stops the start with every problem listed.
            const { contracts } = await loadToolContracts(contractsDir);
            // The same channels and credential resolution as the reconciler's probes.
            const channels = TargetChannels.fromEnv(environment ?? process.env);
            const secrets = new SecretScrubber(channels.credentials.secretValues());
            const log = jsonLinesLog('dispatcher', config.logLevel ?? 'info', secrets);
            const dispatcher = createDispatcher({
              commands,
              results,
              tracer,
              contracts,
              config: dispatcherConfigFrom(env),
              credentials: channels.credentials,
              channel: channels.http,
              ssh: channels.ssh,
              mcp: channels.mcp,
              secrets,
              sealer: new AesGcmArgumentSealer(env.ONCEPORT_ENCRYPTION_KEYS),
              log,
              onAppended: () => delivery.nudge(),
            });
            // In the background: an upstream that is slow to start must not hold the dispatcher's start.
            void reportUpstreamDrift(contracts, channels.mcp, channels.credentials, log);
            return dispatcher;
          },
        },
        { provide: DISPATCH_CONSUMER_SETTINGS, inject: [DISPATCHER], useFactory: (dispatcher: Dispatcher) => dispatcher.consumerSettings },
      ],
    };
  }
}
