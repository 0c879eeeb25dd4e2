import { Controller, type DynamicModule, Get, HttpCode, HttpException, HttpStatus, Inject, Module } from '@nestjs/common';
import type { OnceportRuntime } from '../onceport-runtime';
import { MetricsController } from './metrics.controller';

export const RUNTIME = Symbol('ONCEPORT_RUNTIME');

@Controller()
class HealthController {
  constructor(@Inject(RUNTIME) private readonly runtime: OnceportRuntime) {}

  /** Liveness: the process answers. Restarting it would not fix a database outage, so no checks here. */
  @Get('healthz')
  @HttpCode(200)
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: take this replica out of rotation while its database or NATS is unreachable. */
  @Get('readyz')
  async readyz(): Promise<{ status: string; checks: Record<string, string> }> {
    const { ready, checks } = await this.runtime.readiness();
    if (!ready) throw new HttpException({ status: 'not_ready', checks }, HttpStatus.SERVICE_UNAVAILABLE);
    return { status: 'ready', checks };
  }
}

/** Makes the process's runtime injectable (`@Inject(RUNTIME)`) and serves /healthz, /readyz and /metrics. */
@Module({})
export class RuntimeModule {
  static forRoot(runtime: OnceportRuntime): DynamicModule {
    return {
      module: RuntimeModule,
      global: true,
      controllers: [HealthController, MetricsController],
      providers: [{ provide: RUNTIME, useValue: runtime }],
      exports: [RUNTIME],
    };
  }
}
