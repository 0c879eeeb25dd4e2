import { randomBytes } from 'node:crypto';
import { type DynamicModule } from '@nestjs/common';
import { type ServiceName } from '@onceport/api-docs';
import { loadEnvConfig } from '@onceport/config';
import { AuthorizationModule, authorizationEnvShape } from '@onceport/feature-authorization';
import { DispatcherModule, dispatcherEnvShape } from '@onceport/feature-dispatcher';
import { IntakeModule, intakeEnvShape } from '@onceport/feature-intake';
import { ReconcilerModule, reconcilerEnvShape } from '@onceport/feature-reconciler';
import { ServiceKitModule } from '@onceport/service-kit';
import { z } from 'zod';

/** What each service's `main.ts` composes (bootstrapService: the kit's module, then the feature's `forRoot`). */
export interface ServiceModules {
  readonly service: ServiceName;
  readonly modules: readonly DynamicModule[];
}

/**
 * The modules of the four services, made as their apps make them but never instantiated: `forRoot`
 * only describes providers, so no database, broker or contract file is touched. The environment is
 * each feature's own schema over placeholder keys (routes do not depend on their values).
 */
export function serviceModules(): readonly ServiceModules[] {
  const key = `docs:${randomBytes(32).toString('base64')}`;
  const placeholders = { ONCEPORT_ACTORS_FILE: '/dev/null', ONCEPORT_HMAC_KEYS: key, ONCEPORT_ENCRYPTION_KEYS: key };
  const envOf = <Shape extends z.ZodRawShape>(shape: Shape): z.output<z.ZodObject<Shape>> => loadEnvConfig(z.object(shape), placeholders);
  const contractsDir = '/dev/null';
  const kit = (service: ServiceName): DynamicModule =>
    ServiceKitModule.forRoot({ serviceName: service, databaseUrl: 'postgres://unused', delivery: 'in_process', natsUrl: 'nats://unused' });
  return [
    { service: 'intake', modules: [kit('intake'), IntakeModule.forRoot({ env: envOf(intakeEnvShape), contractsDir })] },
    {
      service: 'authorization',
      modules: [kit('authorization'), AuthorizationModule.forRoot({ env: envOf(authorizationEnvShape), contractsDir })],
    },
    { service: 'dispatcher', modules: [kit('dispatcher'), DispatcherModule.forRoot({ env: envOf(dispatcherEnvShape), contractsDir })] },
    { service: 'reconciler', modules: [kit('reconciler'), ReconcilerModule.forRoot({ env: envOf(reconcilerEnvShape), contractsDir })] },
  ];
}
