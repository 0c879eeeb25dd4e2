import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { RunId, RunTrigger } from '@onceport/contracts';
import { RunRefusal } from '@onceport/domain';
import { BodyTooLargeError, MalformedJsonError, SERVICE_LOG, type ServiceLog, readJsonBody } from '@onceport/service-kit';
import { INTAKE_DEPENDENCIES, type IntakeDependencies } from '../intake-dependencies';
import { internalErrorMessage, reportInternalError } from '../internal-errors/internal-error';
import { authenticateActor } from '../rest/authenticate-actor';
import { sendJson, sendProblem } from '../rest/problem';
import { RUN_REFUSAL_STATUS } from './run-errors';
import { divergenceView, runReportView, runView, unsafeByTool } from './run-views';
import { parseRunsListQuery } from './runs-list-query';
import { type RunCaller, RunsReadModelBehind, RunsService, UnknownRunsCursor } from './runs.service';

const MAX_REASON_CHARS = 1000;

/**
 * Runs for orchestrators (DESIGN.md §7): open one, read what it did, ask to replay it, read the
 * divergence report. The run's actor calls with its key or token; an operator may read any run and
 * force a refused replay with an admin key and a reason.
 */
@Controller('v1/runs')
export class RunsController {
  constructor(
    @Inject(INTAKE_DEPENDENCIES) private readonly deps: IntakeDependencies,
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(SERVICE_LOG) private readonly log: ServiceLog,
  ) {}

  @Post()
  async open(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const actor = await authenticateActor(this.deps, req, res);
    if (!actor) return;
    await this.answering(res, async () => {
      const body = await this.body(req, res);
      if (body === undefined) return;
      const runId = body['run_id'] === undefined ? null : RunId.safeParse(body['run_id']);
      const trigger = RunTrigger.safeParse(body['trigger']);
      const errors = [
        ...(runId && !runId.success ? [{ path: '$.run_id', message: runId.error.issues[0]?.message ?? 'invalid' }] : []),
        ...(!trigger.success ? [{ path: '$.trigger', message: trigger.error.issues[0]?.message ?? 'required' }] : []),
        ...unknownFields(body, ['run_id', 'trigger']),
      ];
      if (errors.length > 0 || !trigger.success)
        return sendProblem(res, 422, 'invalid-request', 'Invalid run', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
      const opened = await this.runs.open(actor.id, runId?.success ? runId.data : null, trigger.data, {
        causationId: `rest:runs:${Date.now()}`,
        actor: actor.id,
      });
      sendJson(res, opened.created ? 201 : 200, runView(opened.run), { Location: `/v1/runs/${opened.run.runId}` });
    });
  }

  /** Runs newest first, paged: an agent key its own; an admin key every run, by actor or trigger. */
  @Get()
  async list(@Req() req: IncomingMessage, @Res() res: ServerResponse, @Query() raw: Record<string, unknown> = {}): Promise<void> {
    const caller = await this.listCaller(req, res);
    if (!caller) return;
    const parsed = parseRunsListQuery(raw);
    if ('errors' in parsed) {
      const { errors } = parsed;
      return sendProblem(res, 400, 'invalid-query', 'Invalid query', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
    }
    await this.answering(res, async () => {
      const page = await this.runs.list(caller, parsed.query);
      sendJson(res, 200, {
        runs: page.runs.map((run) => ({
          run_id: run.runId,
          actor: run.actor,
          trigger: run.trigger,
          opened_at: run.openedAt,
          attempts: run.attempts,
          last_attempt_at: run.lastAttemptAt,
          last_activity_at: run.lastActivityAt,
        })),
        next_cursor: page.next,
      });
    });
  }

  @Get(':id')
  async one(@Param('id') id: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const caller = await this.caller(req, res, id);
    if (!caller) return;
    await this.answering(res, async () => sendJson(res, 200, runReportView(await this.runs.report(caller, id))));
  }

  @Get(':id/divergence')
  async divergence(@Param('id') id: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const caller = await this.caller(req, res, id);
    if (!caller) return;
    await this.answering(res, async () => {
      const { attempts } = await this.runs.divergence(caller, id);
      sendJson(res, 200, divergenceView(id, attempts));
    });
  }

  /** The replay check asked without starting anything: would attempt n+1 be allowed now, and if not, why. */
  @Get(':id/replay-check')
  async replayCheck(@Param('id') id: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const caller = await this.caller(req, res, id);
    if (!caller) return;
    await this.answering(res, async () => {
      const { report, check } = await this.runs.replayCheck(caller, id);
      const attempt = report.run.attempts[report.run.attempts.length - 1]?.attempt ?? 1;
      sendJson(res, 200, { run_id: id, attempt, next_attempt: attempt + 1, safe: check.safe, unsafe_tools: unsafeByTool(check) });
    });
  }

  /**
   * The replay check: 201 with the new attempt when every effect so far is replay-safe, else 409
   * listing each unsafe tool. `{"force": {"reason": …}}` with an admin key starts it anyway (audited).
   */
  @Post(':id/replays')
  async replay(@Param('id') id: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const caller = await this.caller(req, res, id);
    if (!caller) return;
    await this.answering(res, async () => {
      const body = await this.body(req, res);
      if (body === undefined) return;
      const force = body['force'];
      let forced: { reason: string } | null = null;
      if (force !== undefined) {
        const reason = typeof force === 'object' && force !== null ? (force as Record<string, unknown>)['reason'] : undefined;
        if (typeof reason !== 'string' || !/\S/.test(reason) || reason.length > MAX_REASON_CHARS)
          return sendProblem(
            res,
            422,
            'invalid-request',
            'Invalid force',
            `$.force.reason: a reason of 1–${MAX_REASON_CHARS} characters is required to force a replay`,
          );
        if (caller.kind !== 'admin')
          return sendProblem(
            res,
            403,
            'admin-required',
            'Forcing a replay takes an admin key',
            'Only an operator (admin key) may force a replay the check refused; the reason is audited.',
          );
        forced = { reason };
      }
      const extra = unknownFields(body, ['force']);
      if (extra.length > 0)
        return sendProblem(res, 422, 'invalid-request', 'Invalid replay request', extra.map((e) => `${e.path}: ${e.message}`).join('; '));
      const { run, check } = await this.runs.replay(caller, id, forced, {
        causationId: `rest:replay:${id}:${Date.now()}`,
        actor: caller.id,
      });
      const started = run.attempts[run.attempts.length - 1];
      sendJson(
        res,
        201,
        {
          ...runView(run),
          replay_check: { safe: check.safe, unsafe_tools: unsafeByTool(check) },
          // What a forced attempt may repeat, said in the answer as well as in the audited event.
          ...(started?.forced ? { forced: { by: started.forced.by, reason: started.forced.reason, may_repeat: unsafeByTool(check) } } : {}),
        },
        { Location: `/v1/runs/${id}` },
      );
    });
  }

  /** An admin (key or operator's token) reads (and forces) any run; otherwise the run's own actor. */
  private async caller(req: IncomingMessage, res: ServerResponse, id: string): Promise<RunCaller | null> {
    if (!RunId.safeParse(id).success) {
      sendProblem(res, 404, 'run-not-found', 'Run not found', 'not a run id');
      return null;
    }
    return this.listCaller(req, res);
  }

  /** An operator (admin key) or an actor (its key or token); a refusal sent otherwise. */
  private async listCaller(req: IncomingMessage, res: ServerResponse): Promise<RunCaller | null> {
    const header = req.headers['authorization'];
    const admin = await this.deps.admins?.authenticate(typeof header === 'string' ? header : undefined);
    if (admin?.ok) return { kind: 'admin', id: admin.admin.id };
    const actor = await authenticateActor(this.deps, req, res);
    return actor ? { kind: 'actor', id: actor.id } : null;
  }

  /** The JSON object body (empty when none), or undefined when a refusal was sent. */
  private async body(req: IncomingMessage, res: ServerResponse): Promise<Record<string, unknown> | undefined> {
    let raw: unknown;
    try {
      raw = await readJsonBody(req, this.deps.settings.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) sendProblem(res, 413, 'body-too-large', 'Request body too large', error.message);
      else if (error instanceof MalformedJsonError) sendProblem(res, 400, 'malformed-json', 'Malformed JSON', error.message);
      else throw error;
      return undefined;
    }
    if (raw === undefined || raw === null) return {};
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      sendProblem(res, 422, 'invalid-request', 'Invalid request', 'the body must be a JSON object');
      return undefined;
    }
    return raw as Record<string, unknown>;
  }

  private async answering(res: ServerResponse, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (error instanceof RunRefusal) {
        const { status, type, title } = RUN_REFUSAL_STATUS[error.code];
        const unsafe = error.check ? { unsafe_tools: unsafeByTool(error.check) } : {};
        return sendProblem(res, status, type, title, error.message, { code: error.code, ...unsafe });
      }
      if (error instanceof UnknownRunsCursor) return sendProblem(res, 400, 'invalid-cursor', 'Invalid cursor', error.message);
      if (error instanceof RunsReadModelBehind) {
        res.setHeader('Retry-After', '1');
        return sendProblem(res, 503, 'read-model-behind', 'Try again', error.message);
      }
      const correlationId = reportInternalError((level, message, fields) => this.log(level, message, fields), error, 'rest runs');
      if (res.headersSent) return void res.end();
      sendProblem(res, 500, 'internal-error', 'Internal error', internalErrorMessage(correlationId), { correlation_id: correlationId });
    }
  }
}

function unknownFields(body: Record<string, unknown>, known: readonly string[]): { path: string; message: string }[] {
  return Object.keys(body)
    .filter((key) => !known.includes(key))
    .slice(0, 10)
    .map((key) => ({ path: `$.${key.slice(0, 64)}`, message: `unknown field; expected ${known.join(', ')}` }));
}
