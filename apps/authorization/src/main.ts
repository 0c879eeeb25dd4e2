import { AuthorizationModule, authorizationEnvShape } from '@onceport/feature-authorization';
import { bootstrapService } from '@onceport/service-kit';

void bootstrapService({
  serviceName: 'authorization',
  defaultPort: 3002,
  envShape: authorizationEnvShape,
  module: (options) => AuthorizationModule.forRoot(options),
});
