import type { ServerResponse } from 'node:http';
import { Controller, Get, Res } from '@nestjs/common';
import { collectDefaultMetrics, register } from 'prom-client';

let defaultMetricsOn = false;

/** Process metrics (CPU, memory, event loop, GC) once per process, however many modules are made. */
function ensureDefaultMetrics(): void {
  if (defaultMetricsOn) return;
  defaultMetricsOn = true;
  // The event-loop delay histogram samples every 100 ms, not prom-client's 10 ms: a timer a hundred
  // times a second was a good part of an idle service's CPU, and lag worth alerting on is longer.
  collectDefaultMetrics({ eventLoopMonitoringPrecision: 100 });
}

/**
 * `GET /metrics` in the Prometheus text format: prom-client's default registry, where every lib
 * registers its metrics (e.g. `onceport_events_quarantined_total`). Unauthenticated like /healthz:
 * it carries counts by code-constant labels, never ids or payloads.
 */
@Controller()
export class MetricsController {
  constructor() {
    ensureDefaultMetrics();
  }

  @Get('metrics')
  async metrics(@Res() res: ServerResponse): Promise<void> {
    const body = await register.metrics();
    res.writeHead(200, { 'Content-Type': register.contentType }).end(body);
  }
}
