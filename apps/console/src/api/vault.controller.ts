import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { UpstreamClient } from '../upstream/upstream-client';
import { ConsoleGate } from './console-gate';
import { ConsoleRefusal, answering, bodyOf, reasonOf, relay } from './console-http';

/** The vault: the first rung of the ladder, locked and unlocked with a reason (authorization service). */
@Controller('api/vault')
export class VaultController {
  constructor(
    @Inject(ConsoleGate) private readonly gate: ConsoleGate,
    @Inject(UpstreamClient) private readonly upstream: UpstreamClient,
  ) {}

  @Get()
  async state(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const session = this.gate.session(req, res);
    if (!session) return;
    await answering(res, async () => relay(res, await this.upstream.call('authorization', 'GET', '/v1/admin/vault', session.credential)));
  }

  @Post(':change')
  async change(@Param('change') change: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const session = this.gate.change(req, res);
    if (!session) return;
    await answering(res, async () => {
      if (change !== 'lock' && change !== 'unlock')
        throw new ConsoleRefusal(404, 'not_found', 'No such change', 'The vault is locked or unlocked.');
      const reason = reasonOf(await bodyOf(req));
      relay(res, await this.upstream.call('authorization', 'POST', `/v1/admin/vault/${change}`, session.credential, { reason }));
    });
  }
}
