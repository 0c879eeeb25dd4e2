import { DispatcherModule, dispatcherEnvShape } from '@onceport/feature-dispatcher';
import { bootstrapService } from '@onceport/runtime';

void bootstrapService({
  serviceName: 'dispatcher',
  defaultPort: 3003,
  envShape: dispatcherEnvShape,
  module: (runtime, env, base) => DispatcherModule.forRoot({ runtime, env, base }),
});
