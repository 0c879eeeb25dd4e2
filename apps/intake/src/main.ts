import { IntakeModule, intakeEnvShape, intakeMigrations } from '@onceport/feature-intake';
import { bootstrapService } from '@onceport/service-kit';

void bootstrapService({
  serviceName: 'intake',
  defaultPort: 3001,
  envShape: intakeEnvShape,
  migrations: intakeMigrations,
  module: (options) => IntakeModule.forRoot(options),
});
