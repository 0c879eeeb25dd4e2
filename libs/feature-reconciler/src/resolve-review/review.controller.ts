import type { IncomingMessage, ServerResponse } from 'node:http';
import { EntityManager } from '@mikro-orm/postgresql';
import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { type ActorDirectory, type Admin } from '@onceport/config';
import { IllegalTransitionError } from '@onceport/domain';
import {
  BodyTooLargeError,
  COMMAND_HANDLER,
  EVENT_DELIVERY,
  PG_POOL,
  Problem,
  readJsonBody,
  requireAdmin,
  sendProblem,
  writeProblem,
} from '@onceport/service-kit';
import { ADMINS } from '../reconciler.tokens';
import { catchUpReadModel, executionsInReview } from './review-queries';
import { type ReviewView, reviewViewOf } from './review-view';
import { type CommandHandler, executionStream } from '@onceport/event-store';
import type { EventDelivery } from '@onceport/messaging';
import type { Pool } from 'pg';

const MAX_BODY = 16 * 1024;
const LIST_LIMIT = 500;

/**
 * An operator settles what machines couldn't: the executions in `needs_review` are listed with
 * their record and last probe, and each is resolved applied / not applied with a reason. The
 * resolution is an event with who and why; an agent asking again gets it.
 */
@Controller('v1/admin')
export class ReviewController {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(COMMAND_HANDLER) private readonly commands: CommandHandler,
    @Inject(EVENT_DELIVERY) private readonly delivery: EventDelivery,
    @Inject(ADMINS) private readonly admins: ActorDirectory,
    @Inject(EntityManager) private readonly em: EntityManager,
  ) {}

  @Get('reviews')
  async list(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    if (!(await this.admin(req, res))) return;
    await catchUpReadModel(this.pool);
    const loaded = await Promise.all((await executionsInReview(this.em, LIST_LIMIT)).map((id) => this.commands.load(executionStream(id))));
    const reviews = loaded
      .map((execution) => reviewViewOf(execution.state, execution.events))
      .filter((view): view is ReviewView => view !== null);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ reviews }));
  }

  @Post('executions/:id/resolve')
  async resolve(@Param('id') id: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const admin = await this.admin(req, res);
    if (!admin) return;
    const body = await readBody(req).catch((error: unknown) => {
      if (error instanceof BodyTooLargeError) return 'too_large' as const;
      throw error;
    });
    if (body === 'too_large') return problem(res, 413, 'body_too_large', `the body may be at most ${MAX_BODY} bytes`);
    if (body === null)
      return problem(res, 400, 'malformed_json', 'the body must be JSON: {"resolution": "applied" | "not_applied", "reason": "…"}');
    const resolution = body['resolution'];
    const reason = body['reason'];
    if (resolution !== 'applied' && resolution !== 'not_applied')
      return problem(res, 400, 'resolution_required', '"resolution": must be "applied" or "not_applied"');
    if (typeof reason !== 'string' || reason.trim() === '' || reason.length > 1000)
      return problem(res, 400, 'reason_required', '"reason": a sentence of 1–1000 characters saying why');
    if (!/^exe_[0-9A-HJKMNP-TV-Z]{26}$/.test(id)) return problem(res, 404, 'execution_not_found', `no execution ${id}`);
    try {
      const handled = await this.commands.handle(
        executionStream(id),
        (loaded, now) =>
          loaded.state.status === 'none'
            ? null
            : { type: 'ResolveReview', data: { resolution, reviewer: admin.id, reason }, metadata: { now } },
        { causationId: `admin:${admin.id}`, actor: admin.id },
      );
      if (handled.state.status === 'none') return problem(res, 404, 'execution_not_found', `no execution ${id}`);
      if (handled.appended.length > 0) this.delivery.nudge();
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ execution_id: id, state: handled.state.status, resolved_by: admin.id }));
    } catch (error) {
      if (error instanceof IllegalTransitionError) return problem(res, 409, 'not_in_review', error.message);
      throw error;
    }
  }

  /** The admin behind the bearer token, or a 401 already sent. */
  private async admin(req: IncomingMessage, res: ServerResponse): Promise<Admin | null> {
    try {
      return await requireAdmin(this.admins, req.headers.authorization);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      writeProblem(res, error);
      return null;
    }
  }
}

/** The JSON object in the body; `null` when it is not JSON or not an object. */
async function readBody(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const parsed = await readJsonBody(req, MAX_BODY).catch((error: unknown) => {
    if (error instanceof BodyTooLargeError) throw error;
    return null;
  });
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
}

/** RFC 9457 problem details with a stable `code`, as the other admin APIs answer. */
function problem(res: ServerResponse, status: number, code: string, detail: string): void {
  sendProblem(res, status, code, code.replace(/_/g, ' '), detail);
}
