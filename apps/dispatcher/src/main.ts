import { DispatcherModule } from '@onceport/feature-dispatcher';
import { bootstrapService } from '@onceport/runtime';

void bootstrapService({
  serviceName: 'dispatcher',
  defaultPort: 3003,
  envShape: {},
  module: () => DispatcherModule.forRoot(),
});
