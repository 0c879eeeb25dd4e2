import { type IncomingMessage } from 'node:http';
import { Controller, Get, Headers, HttpCode, Inject, Param, Post, Query, Req, UseFilters } from '@nestjs/common';
import type { Tracer } from '@opentelemetry/api';
import { AUTHORIZATION_OPTIONS, type AuthorizationOptions } from '../authorization.options';
import { adminCause, headerOf } from '../http/admin-request';
import { reasonOf } from '../vault/vault-reason';
import { type ApprovalDecision, ApprovalDesk, type ApprovalFilter } from './approval-desk';
import { type ApproverView } from './approver-view';
import {
  Problem,
  ProblemDetailsFilter,
  TRACER,
  contextFromTraceparent,
  inSpan,
  readJsonBodyOrProblem as readJsonBody,
  requireAdmin,
} from '@onceport/service-kit';

const FILTERS: readonly ApprovalFilter[] = ['pending', 'granted', 'rejected', 'expired', 'all'];

/**
 * The approver's API. Every route needs an admin key; a decision needs a reason, recorded with the
 * approver's identity on the execution's stream.
 */
@Controller('v1/admin/approvals')
@UseFilters(ProblemDetailsFilter)
export class ApprovalsAdminController {
  constructor(
    @Inject(AUTHORIZATION_OPTIONS) private readonly options: AuthorizationOptions,
    @Inject(ApprovalDesk) private readonly desk: ApprovalDesk,
    @Inject(TRACER) private readonly tracer: Tracer,
  ) {}

  @Get()
  async list(
    @Headers('authorization') authorization: string | undefined,
    @Query('status') status?: string,
    @Query('limit') limit?: string,
  ): Promise<{ approvals: ApproverView[] }> {
    await requireAdmin(this.options.directory, authorization);
    return { approvals: await this.desk.list(filterOf(status), limitOf(limit)) };
  }

  @Get(':approval_id')
  async one(@Headers('authorization') authorization: string | undefined, @Param('approval_id') approvalId: string): Promise<ApproverView> {
    await requireAdmin(this.options.directory, authorization);
    return this.desk.get(approvalId);
  }

  @Post(':approval_id/grant')
  @HttpCode(200)
  grant(
    @Headers('authorization') authorization: string | undefined,
    @Param('approval_id') approvalId: string,
    @Req() request: IncomingMessage,
  ): Promise<ApproverView> {
    return this.decide('grant', authorization, approvalId, request);
  }

  @Post(':approval_id/reject')
  @HttpCode(200)
  reject(
    @Headers('authorization') authorization: string | undefined,
    @Param('approval_id') approvalId: string,
    @Req() request: IncomingMessage,
  ): Promise<ApproverView> {
    return this.decide('reject', authorization, approvalId, request);
  }

  private async decide(
    decision: ApprovalDecision,
    authorization: string | undefined,
    approvalId: string,
    request: IncomingMessage,
  ): Promise<ApproverView> {
    // Authenticate before reading the body: an anonymous caller gets nothing parsed.
    const admin = await requireAdmin(this.options.directory, authorization);
    const reason = reasonOf(await readJsonBody(request));
    const parent = contextFromTraceparent(headerOf(request, 'traceparent'), headerOf(request, 'tracestate'));
    return inSpan(this.tracer, `approval ${decision}`, parent, { 'onceport.admin': admin.id, 'onceport.approval_id': approvalId }, () =>
      this.desk.decide(approvalId, decision, admin, reason, adminCause(request, admin)),
    );
  }
}

function filterOf(status: string | undefined): ApprovalFilter {
  if (status === undefined || status === '') return 'pending';
  if ((FILTERS as readonly string[]).includes(status)) return status as ApprovalFilter;
  throw new Problem(
    400,
    'invalid_status',
    'Invalid status',
    `"status" must be one of ${FILTERS.join(', ')}; got ${JSON.stringify(status)}.`,
  );
}

function limitOf(limit: string | undefined): number {
  if (limit === undefined || limit === '') return 200;
  const value = Number(limit);
  if (!Number.isInteger(value) || value < 1 || value > 1000)
    throw new Problem(
      400,
      'invalid_limit',
      'Invalid limit',
      `"limit" must be a whole number from 1 to 1000; got ${JSON.stringify(limit)}.`,
    );
  return value;
}
