import { type IncomingMessage } from 'node:http';
import { Controller, Headers, HttpCode, Inject, Param, Post, Req, UseFilters } from '@nestjs/common';
import { ExecutionId } from '@onceport/contracts';
import { IllegalTransitionError } from '@onceport/domain';
import type { Tracer } from '@opentelemetry/api';
import type { EventDelivery } from '@onceport/messaging';
import { AUTHORIZATION_OPTIONS, type AuthorizationOptions } from '../authorization.options';
import { adminCause, headerOf } from '../http/admin-request';
import { reasonOf } from '../vault/vault-reason';
import {
  COMMAND_HANDLER,
  EVENT_DELIVERY,
  Problem,
  ProblemDetailsFilter,
  TRACER,
  contextFromTraceparent,
  inSpan,
  readJsonBodyOrProblem as readJsonBody,
  requireAdmin,
} from '@onceport/service-kit';
import { type CommandHandler, executionStream } from '@onceport/event-store';

export interface RevertView {
  readonly execution_id: string;
  readonly state: 'reverted';
  readonly reverted_by: string;
}

/**
 * "Done, then undone" (DESIGN.md §4–§5): an operator records that an effect was reverted outside
 * Onceport. The execution stops matching, so the same intent may run again. Reverting a reverted
 * execution answers 200 with who reverted it first.
 */
@Controller('v1/admin/executions')
@UseFilters(ProblemDetailsFilter)
export class RevertAdminController {
  constructor(
    @Inject(AUTHORIZATION_OPTIONS) private readonly options: AuthorizationOptions,
    @Inject(COMMAND_HANDLER) private readonly commands: CommandHandler,
    @Inject(EVENT_DELIVERY) private readonly delivery: EventDelivery,
    @Inject(TRACER) private readonly tracer: Tracer,
  ) {}

  @Post(':execution_id/revert')
  @HttpCode(200)
  async revert(
    @Headers('authorization') authorization: string | undefined,
    @Param('execution_id') executionId: string,
    @Req() request: IncomingMessage,
  ): Promise<RevertView> {
    const admin = await requireAdmin(this.options.directory, authorization);
    const reason = reasonOf(await readJsonBody(request));
    if (!ExecutionId.safeParse(executionId).success) throw notFound(executionId);
    const parent = contextFromTraceparent(headerOf(request, 'traceparent'), headerOf(request, 'tracestate'));
    return inSpan(
      this.tracer,
      'execution revert',
      parent,
      { 'onceport.admin': admin.id, 'onceport.execution_id': executionId },
      async () => {
        let handled;
        try {
          handled = await this.commands.handle(
            executionStream(executionId),
            (loaded, now) =>
              loaded.state.status === 'none' ? null : { type: 'RevertExecution', data: { by: admin.id, reason }, metadata: { now } },
            adminCause(request, admin),
          );
        } catch (error) {
          if (error instanceof IllegalTransitionError) throw new Problem(409, 'not_revertible', 'Execution not revertible', error.message);
          throw error;
        }
        if (handled.state.status === 'none') throw notFound(executionId);
        if (handled.state.status !== 'reverted')
          throw new Problem(409, 'not_revertible', 'Execution not revertible', `Execution ${executionId} is ${handled.state.status}.`);
        if (handled.appended.length > 0) {
          this.delivery.nudge();
          this.options.log('info', 'execution reverted', { executionId, by: admin.id });
        }
        return { execution_id: executionId, state: 'reverted', reverted_by: handled.state.reversal.by };
      },
    );
  }
}

function notFound(executionId: string): Problem {
  return new Problem(404, 'execution_not_found', 'Execution not found', `There is no execution ${executionId}.`);
}
