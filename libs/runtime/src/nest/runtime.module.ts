import { type DynamicModule, Module } from '@nestjs/common';
import { HealthModule, type ReadinessCheck } from '@onceport/service-kit';
import type { OnceportRuntime } from '../onceport-runtime';
import { MetricsController } from './metrics.controller';

export const RUNTIME = Symbol('ONCEPORT_RUNTIME');

/** Readiness: the database answers and event delivery is connected. */
function readinessChecks(runtime: OnceportRuntime): readonly ReadinessCheck[] {
  return [
    {
      name: 'database',
      probe: async () => {
        await runtime.pool.query('SELECT 1').catch((error: unknown) => {
          throw new Error(`unavailable: ${(error as Error).message}`);
        });
      },
    },
    {
      name: 'delivery',
      probe: async () => {
        if (!runtime.delivery.isReady()) throw new Error('disconnected');
      },
    },
  ];
}

/** Makes the process's runtime injectable (`@Inject(RUNTIME)`) and serves /healthz, /readyz (terminus) and /metrics. */
@Module({})
export class RuntimeModule {
  static forRoot(runtime: OnceportRuntime): DynamicModule {
    return {
      module: RuntimeModule,
      global: true,
      imports: [HealthModule.forRoot({ useFactory: () => readinessChecks(runtime) })],
      controllers: [MetricsController],
      providers: [{ provide: RUNTIME, useValue: runtime }],
      exports: [RUNTIME],
    };
  }
}
