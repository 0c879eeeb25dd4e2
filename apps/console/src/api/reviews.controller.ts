import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { UpstreamClient } from '../upstream/upstream-client';
import { ConsoleGate } from './console-gate';
import { ConsoleRefusal, EXECUTION_ID, answering, bodyOf, reasonOf, relay, segment } from './console-http';

/** The review queue (reconciler): what machines could not settle, and a person's verdict on it. */
@Controller('api/reviews')
export class ReviewsController {
  constructor(
    @Inject(ConsoleGate) private readonly gate: ConsoleGate,
    @Inject(UpstreamClient) private readonly upstream: UpstreamClient,
  ) {}

  @Get()
  async list(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const session = this.gate.session(req, res);
    if (!session) return;
    await answering(res, async () => relay(res, await this.upstream.call('reconciler', 'GET', '/v1/admin/reviews', session.credential)));
  }

  @Post(':id/resolve')
  async resolve(@Param('id') id: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const session = this.gate.change(req, res);
    if (!session) return;
    await answering(res, async () => {
      const execution = segment(id, EXECUTION_ID, 'execution id');
      const body = await bodyOf(req);
      const resolution = body['resolution'];
      if (resolution !== 'applied' && resolution !== 'not_applied')
        throw new ConsoleRefusal(400, 'resolution_required', 'A verdict is required', '"resolution": "applied" or "not_applied".');
      const reason = reasonOf(body);
      const path = `/v1/admin/executions/${execution}/resolve`;
      relay(res, await this.upstream.call('reconciler', 'POST', path, session.credential, { resolution, reason }));
    });
  }
}
