import { type DynamicModule, Module } from '@nestjs/common';
import { loadToolContracts } from '@onceport/config';
import { AesGcmArgumentSealer, type OnceportRuntime, type RuntimeEnv } from '@onceport/runtime';
import { TargetChannels } from '@onceport/target-channels';
import { createDispatcher } from './create-dispatcher';
import { type DispatcherEnv, dispatcherConfigFrom } from './dispatcher.config';
import { DISPATCHER, DISPATCH_CONSUMER_SETTINGS, DispatchTriggersConsumer } from './dispatch-execution/dispatch-triggers.consumer';
import { jsonLinesLog } from './logging/dispatcher-log';
import { SecretScrubber } from './secrets/secret-scrubber';

export interface DispatcherModuleOptions {
  readonly runtime: OnceportRuntime;
  readonly env: DispatcherEnv;
  readonly base: RuntimeEnv;
  /** Where `ONCEPORT_CREDENTIAL_<REF>` and `ONCEPORT_CREDENTIALS_DIR` are read; default process.env (the embedded start passes its own). */
  readonly credentialsEnv?: NodeJS.ProcessEnv;
}

/**
 * The dispatcher service (DESIGN.md §8): consumes ExecutionAuthorized and re-dispatch orders,
 * appends DispatchStarted before any byte leaves, sends through the HTTP channel with the
 * credential only it holds, and records what came of it.
 *
 * @example bootstrapService({ serviceName: 'dispatcher', envShape: dispatcherEnvShape, module: (runtime, env, base) => DispatcherModule.forRoot({ runtime, env, base }), … })
 */
@Module({})
export class DispatcherModule {
  static async forRoot({ runtime, env, base, credentialsEnv }: DispatcherModuleOptions): Promise<DynamicModule> {
    // Loaded once at start: a contract problem stops the start with every problem listed.
    const { contracts } = await loadToolContracts(base.ONCEPORT_CONTRACTS_DIR);
    // The same channels and credential resolution as the reconciler's probes.
    const channels = TargetChannels.fromEnv(credentialsEnv ?? process.env);
    const secrets = new SecretScrubber(channels.credentials.secretValues());
    const dispatcher = createDispatcher({
      commands: runtime.commands,
      results: runtime.results,
      tracer: runtime.tracer,
      contracts,
      config: dispatcherConfigFrom(env),
      credentials: channels.credentials,
      channel: channels.http,
      ssh: channels.ssh,
      secrets,
      sealer: new AesGcmArgumentSealer(env.ONCEPORT_ENCRYPTION_KEYS),
      log: jsonLinesLog('dispatcher', base.LOG_LEVEL, secrets),
      onAppended: () => runtime.delivery.nudge(),
    });
    return {
      module: DispatcherModule,
      controllers: [DispatchTriggersConsumer],
      providers: [
        { provide: DISPATCHER, useValue: dispatcher },
        { provide: DISPATCH_CONSUMER_SETTINGS, useValue: dispatcher.consumerSettings },
      ],
    };
  }
}
