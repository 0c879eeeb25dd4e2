import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheck,
  type HealthCheckResult,
  HealthCheckService,
  type HealthIndicatorResult,
  HealthIndicatorService,
} from '@nestjs/terminus';
import { READINESS_CHECKS, type ReadinessCheck } from './readiness-check';

/** Terminus's answer, plus `checks`: each check's `ok` or why not, as operators and probes have read it. */
export type ReadinessAnswer = HealthCheckResult & { checks: Record<string, string> };

@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(READINESS_CHECKS) private readonly checks: readonly ReadinessCheck[],
  ) {}

  /** Liveness: the process answers. Restarting it would not fix a database outage, so no checks here. */
  @Get('healthz')
  @HealthCheck()
  healthz(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** Readiness: 503 takes this replica out of rotation while its database or NATS is unreachable. */
  @Get('readyz')
  @HealthCheck()
  async readyz(): Promise<ReadinessAnswer> {
    try {
      return withChecks(await this.health.check(this.checks.map((check) => () => this.indicate(check))));
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      throw new ServiceUnavailableException(withChecks(error.getResponse() as HealthCheckResult));
    }
  }

  private async indicate(check: ReadinessCheck): Promise<HealthIndicatorResult> {
    const session = this.indicators.check(check.name);
    try {
      await check.probe();
      return session.up();
    } catch (error) {
      return session.down({ message: error instanceof Error ? error.message : String(error) });
    }
  }
}

function withChecks(result: HealthCheckResult): ReadinessAnswer {
  const checks: Record<string, string> = {};
  for (const [name, detail] of Object.entries(result.details))
    checks[name] = detail.status === 'up' ? 'ok' : String(detail['message'] ?? detail.status);
  return { ...result, checks };
}
