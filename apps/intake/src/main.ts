import { IntakeModule, intakeEnvShape, intakeMigrations } from '@onceport/feature-intake';
import { bootstrapService } from '@onceport/runtime';

void bootstrapService({
  serviceName: 'intake',
  defaultPort: 3001,
  envShape: intakeEnvShape,
  migrations: intakeMigrations,
  module: (runtime, env, base) => IntakeModule.forRoot(runtime, env, base.ONCEPORT_CONTRACTS_DIR),
});
