import { type IncomingMessage } from 'node:http';
import { Controller, Get, Headers, HttpCode, Inject, Param, Post, Req, UseFilters } from '@nestjs/common';
import { AUTHORIZATION_OPTIONS, type AuthorizationOptions } from '../authorization.options';
import { adminCause } from '../http/admin-request';
import { reasonOf } from '../vault/vault-reason';
import { CampaignDesk, type CampaignView, MAX_CAMPAIGN_COUNT } from './campaign-desk';
import { Problem, ProblemDetailsFilter, readJsonBodyOrProblem as readJsonBody, requireAdmin } from '@onceport/service-kit';

/**
 * Campaign approval for approvers: see a run's waiting calls of a per-use tool, then grant up to a
 * count of them at once, with a reason (admin key; recorded with the approver's identity).
 */
@Controller('v1/admin/runs/:run_id/campaigns/:tool')
@UseFilters(ProblemDetailsFilter)
export class CampaignsAdminController {
  constructor(
    @Inject(AUTHORIZATION_OPTIONS) private readonly options: AuthorizationOptions,
    @Inject(CampaignDesk) private readonly campaigns: CampaignDesk,
  ) {}

  @Get()
  async view(
    @Headers('authorization') authorization: string | undefined,
    @Param('run_id') runId: string,
    @Param('tool') tool: string,
  ): Promise<CampaignView> {
    await requireAdmin(this.options.directory, authorization);
    return this.campaigns.view(runId, tool);
  }

  @Post('grant')
  @HttpCode(200)
  async grant(
    @Headers('authorization') authorization: string | undefined,
    @Param('run_id') runId: string,
    @Param('tool') tool: string,
    @Req() request: IncomingMessage,
  ): Promise<CampaignView> {
    const admin = await requireAdmin(this.options.directory, authorization);
    const body = await readJsonBody(request);
    const reason = reasonOf(body);
    const count = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['count'] : undefined;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_CAMPAIGN_COUNT)
      throw new Problem(
        400,
        'invalid_count',
        'Invalid count',
        `"count" must be a whole number from 1 to ${MAX_CAMPAIGN_COUNT}: how many of the run's calls this grant approves.`,
      );
    return this.campaigns.grant(runId, tool, count, admin, reason, adminCause(request, admin));
  }
}
