import { ReconcilerModule, reconcilerEnvShape, reconcilerMigrations } from '@onceport/feature-reconciler';
import { bootstrapService } from '@onceport/runtime';

void bootstrapService({
  serviceName: 'reconciler',
  defaultPort: 3004,
  envShape: reconcilerEnvShape,
  migrations: reconcilerMigrations,
  module: (runtime, env, base) => ReconcilerModule.forRoot(runtime, env, base.ONCEPORT_CONTRACTS_DIR),
});
