import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { UpstreamClient } from '../upstream/upstream-client';
import { ConsoleGate } from './console-gate';
import { EXECUTION_ID, answering, relay, segment } from './console-http';

/** One execution investigated (intake's admin trace: the timeline and the five questions), for the execution page. */
@Controller('api/executions')
export class ExecutionsController {
  constructor(
    @Inject(ConsoleGate) private readonly gate: ConsoleGate,
    @Inject(UpstreamClient) private readonly upstream: UpstreamClient,
  ) {}

  @Get(':id')
  async one(@Param('id') id: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const session = this.gate.session(req, res);
    if (!session) return;
    await answering(res, async () => {
      const path = `/v1/admin/executions/${segment(id, EXECUTION_ID, 'execution id')}/trace`;
      relay(res, await this.upstream.call('intake', 'GET', path, session.credential));
    });
  }
}
