import { DispatcherModule, dispatcherEnvShape } from '@onceport/feature-dispatcher';
import { bootstrapService } from '@onceport/service-kit';

void bootstrapService({
  serviceName: 'dispatcher',
  defaultPort: 3003,
  envShape: dispatcherEnvShape,
  module: (options) => DispatcherModule.forRoot(options),
});
