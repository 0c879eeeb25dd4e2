import { type DynamicModule, type InjectionToken, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { READINESS_CHECKS, type ReadinessCheck } from './readiness-check';

export interface ReadinessChecksProvider {
  readonly inject?: InjectionToken[];
  readonly useFactory: (...deps: never[]) => readonly ReadinessCheck[];
}

/**
 * `/healthz` (liveness) and `/readyz` (every readiness check) through @nestjs/terminus. A failing
 * check is the 503 itself, not a log line: a probe polls it all through an outage.
 *
 * @example HealthModule.forRoot({ inject: [PG_POOL, EVENT_DELIVERY], useFactory: (pool, delivery) => portReadinessChecks(pool, delivery) })
 */
@Module({})
export class HealthModule {
  static forRoot(checks: ReadinessChecksProvider): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: [HealthController],
      providers: [
        {
          provide: READINESS_CHECKS,
          inject: checks.inject ?? [],
          useFactory: checks.useFactory as (...deps: unknown[]) => readonly ReadinessCheck[],
        },
      ],
    };
  }
}
