import { ReconcilerModule, reconcilerEnvShape, reconcilerMigrations } from '@onceport/feature-reconciler';
import { bootstrapService } from '@onceport/service-kit';

void bootstrapService({
  serviceName: 'reconciler',
  defaultPort: 3004,
  envShape: reconcilerEnvShape,
  migrations: reconcilerMigrations,
  module: (options) => ReconcilerModule.forRoot(options),
});
