import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { UpstreamClient } from '../upstream/upstream-client';
import { ConsoleGate } from './console-gate';
import { APPROVAL_ID, ConsoleRefusal, RUN_ID, TOOL_NAME, answering, bodyOf, reasonOf, relay, segment } from './console-http';

const STATUSES = new Set(['pending', 'granted', 'rejected', 'expired', 'all']);

/** The approver's desk, through the authorization service's admin API: the queue, one approval, a decision, a campaign. */
@Controller('api')
export class ApprovalsController {
  constructor(
    @Inject(ConsoleGate) private readonly gate: ConsoleGate,
    @Inject(UpstreamClient) private readonly upstream: UpstreamClient,
  ) {}

  @Get('approvals')
  async list(@Req() req: IncomingMessage, @Res() res: ServerResponse, @Query('status') status?: string): Promise<void> {
    const session = this.gate.session(req, res);
    if (!session) return;
    await answering(res, async () => {
      const filter = status ?? 'pending';
      if (!STATUSES.has(filter))
        throw new ConsoleRefusal(400, 'invalid_status', 'Invalid status', `"status" must be one of ${[...STATUSES].join(', ')}.`);
      relay(res, await this.upstream.call('authorization', 'GET', `/v1/admin/approvals?status=${filter}&limit=200`, session.credential));
    });
  }

  @Get('approvals/:id')
  async one(@Param('id') id: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const session = this.gate.session(req, res);
    if (!session) return;
    await answering(res, async () => {
      const path = `/v1/admin/approvals/${segment(id, APPROVAL_ID, 'approval id')}`;
      relay(res, await this.upstream.call('authorization', 'GET', path, session.credential));
    });
  }

  @Post('approvals/:id/:decision')
  async decide(
    @Param('id') id: string,
    @Param('decision') decision: string,
    @Req() req: IncomingMessage,
    @Res() res: ServerResponse,
  ): Promise<void> {
    const session = this.gate.change(req, res);
    if (!session) return;
    await answering(res, async () => {
      if (decision !== 'grant' && decision !== 'reject')
        throw new ConsoleRefusal(404, 'not_found', 'No such decision', 'An approval is granted or rejected.');
      const approval = segment(id, APPROVAL_ID, 'approval id');
      const reason = reasonOf(await bodyOf(req));
      relay(
        res,
        await this.upstream.call('authorization', 'POST', `/v1/admin/approvals/${approval}/${decision}`, session.credential, { reason }),
      );
    });
  }

  @Get('campaigns/:run/:tool')
  async campaign(
    @Param('run') run: string,
    @Param('tool') tool: string,
    @Req() req: IncomingMessage,
    @Res() res: ServerResponse,
  ): Promise<void> {
    const session = this.gate.session(req, res);
    if (!session) return;
    await answering(res, async () => {
      relay(res, await this.upstream.call('authorization', 'GET', campaignPath(run, tool), session.credential));
    });
  }

  @Post('campaigns/:run/:tool/grant')
  async grantCampaign(
    @Param('run') run: string,
    @Param('tool') tool: string,
    @Req() req: IncomingMessage,
    @Res() res: ServerResponse,
  ): Promise<void> {
    const session = this.gate.change(req, res);
    if (!session) return;
    await answering(res, async () => {
      const path = `${campaignPath(run, tool)}/grant`;
      const body = await bodyOf(req);
      const reason = reasonOf(body);
      const count = body['count'];
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1)
        throw new ConsoleRefusal(
          400,
          'invalid_count',
          'Invalid count',
          '"count": how many of the run\'s calls this grant approves, a whole number ≥ 1.',
        );
      relay(res, await this.upstream.call('authorization', 'POST', path, session.credential, { count, reason }));
    });
  }
}

function campaignPath(run: string, tool: string): string {
  return `/v1/admin/runs/${segment(run, RUN_ID, 'run id')}/campaigns/${segment(tool, TOOL_NAME, 'tool name')}`;
}
