import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { RequestCorrelation } from '@onceport/contracts';
import { asDelivered } from '../answer/as-delivered';
import { ANSWERABLE_STATES, type AgentAnswer } from '../answer/agent-answer';
import { actorClaimMismatch, headerActorClaims } from '../auth/actor-claim';
import { otherUnauthorizedHeaders, toolScopeRefusal } from '../auth/authenticate-bearer';
import { tokenAllowsTool } from '../auth/oauth/tool-scope';
import {
  ExecutionNotFoundError,
  IdempotencyKeyTakenError,
  ExecutionOfAnotherActorError,
  InvalidArgumentsError,
  UnknownToolError,
} from '../call-tool/call-tool.errors';
import { CallToolService } from '../call-tool/call-tool.service';
import { RecordDeliveryService } from '../deliver-result/record-delivery.service';
import { type AuthenticatedActor, INTAKE_DEPENDENCIES, type IntakeDependencies } from '../intake-dependencies';
import { ActorLimitError } from '../limits';
import { sendLimitProblem } from '../limits/limit-answers';
import {
  type BoundViolation,
  boundedTraceContext,
  checkIdempotencyKey,
  checkProcessId,
  describeViolations,
  requestIdOrFresh,
} from '../input-bounds';
import { IntakeErrorFilter } from '../internal-errors/intake-error.filter';
import { internalErrorMessage, reportInternalError } from '../internal-errors/internal-error';
import { QueryExecutionService } from '../query-execution/query-execution.service';
import { RUN_REFUSAL_STATUS, RepeatRefusedError } from '../runs/run-errors';
import { RunAttemptNotStarted } from '../runs/runs.service';
import { RunRefusal } from '@onceport/domain';
import { checkAgentProcessHeader } from './agent-process-header';
import { RestAgentProcesses } from './agent-processes';
import { authenticateActor, sendRefusal } from './authenticate-actor';
import { parseExecutionRequest } from './execution-request';
import { IdempotencyKeys, type KeyedPayload } from './idempotency-keys';
import { IdempotentResponses, KEY_COMPLETING_STATES, type StoredResponse } from './idempotent-responses';
import { sendJson, sendProblem } from './problem';
import { BodyTooLargeError, MalformedJsonError, SERVICE_LOG, type ServiceLog, readJsonBody } from '@onceport/service-kit';

/** REST for runtimes that don't speak MCP: the same executions, the same answers. */
@Controller('v1/executions')
@UseFilters(IntakeErrorFilter)
export class ExecutionsController {
  constructor(
    @Inject(INTAKE_DEPENDENCIES) private readonly deps: IntakeDependencies,
    private readonly callTool: CallToolService,
    private readonly query: QueryExecutionService,
    private readonly delivery: RecordDeliveryService,
    @Inject(RestAgentProcesses) private readonly agentProcesses: RestAgentProcesses,
    @Inject(IdempotencyKeys) private readonly keys: IdempotencyKeys,
    @Inject(IdempotentResponses) private readonly responses: IdempotentResponses,
    @Inject(SERVICE_LOG) private readonly log: ServiceLog,
  ) {}

  @Post()
  async create(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const receivedAt = Date.now();
    const actor = await this.authenticate(req, res);
    if (!actor) return;
    let raw: unknown;
    try {
      raw = await readJsonBody(req, this.deps.settings.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return sendProblem(res, 413, 'body-too-large', 'Request body too large', error.message);
      if (error instanceof MalformedJsonError) return sendProblem(res, 400, 'malformed-json', 'Malformed JSON', error.message);
      throw error;
    }
    // An actor claim in the body or a header is checked, then dropped: the actor is the key's.
    const bodyClaim = isObject(raw) && 'actor' in raw ? [{ where: 'body field actor', value: raw['actor'] }] : [];
    const mismatch = actorClaimMismatch(actor, [...headerActorClaims(req), ...bodyClaim]);
    if (mismatch) {
      return sendProblem(res, 401, 'actor-mismatch', "The claimed actor is not the API key's actor", mismatch.detail, {}, this.challenge());
    }
    const checked = parseExecutionRequest(withoutActorClaim(raw), this.deps.settings);
    const keyChecked = checkIdempotencyKey(header(req, 'idempotency-key'));
    const processChecked = checkProcessId(header(req, 'onceport-agent-process'), 'Onceport-Agent-Process');
    const violations = [checked, keyChecked, processChecked].flatMap((c) => (c.ok ? [] : c.violations));
    if (!checked.ok || !keyChecked.ok || !processChecked.ok) return sendViolations(res, violations);
    const body = checked.value;
    // A token narrowed to other tools is refused here, before anything is recorded (authorization
    // only knows the actor's own list, not what this one token may do).
    if (!tokenAllowsTool(actor, body.tool)) return sendRefusal(res, toolScopeRefusal(this.deps, [body.tool]));
    const key = keyChecked.value;
    const agentProcess = await checkAgentProcessHeader(processChecked.value, actor, this.agentProcesses);
    if (!agentProcess.ok) return sendProblem(res, agentProcess.status, agentProcess.type, agentProcess.title, agentProcess.detail);
    const correlation: RequestCorrelation = {
      transport: 'rest',
      jsonRpcId: null,
      sessionId: null,
      requestId: requestIdOrFresh(header(req, 'x-request-id')),
    };
    const request = {
      actor: actor.id,
      agentProcess: agentProcess.agentProcess,
      tool: body.tool,
      arguments: body.arguments,
      intentScope: body.intentScope,
      run: body.run,
      repeat: body.repeat,
      correlation,
      clientIdempotencyKey: key,
      waitMs: body.waitMs,
      ...boundedTraceContext(header(req, 'traceparent'), header(req, 'tracestate')),
      receivedAt,
    };
    try {
      if (key === null) return this.answer(res, (await this.callTool.call(request)).answer, correlation);
      const payload = {
        tool: body.tool,
        arguments: body.arguments,
        intent_scope: body.intentScope,
        ...(body.run ? { run: body.run } : {}),
        ...(body.repeat ? { repeat: body.repeat } : {}),
      };
      const digest = this.keys.digest(payload);
      const prior = await this.keys.lookup(actor.id, key);
      if (prior) return await this.answerReusedKey(res, actor, key, prior, payload, correlation);
      try {
        const outcome = await this.callTool.start(request, this.keys.toBind(actor.id, key, digest));
        return await this.answerKeyed(res, actor, key, outcome.answer, correlation);
      } catch (error) {
        if (!(error instanceof IdempotencyKeyTakenError)) throw error;
        // Another request bound the key first: this one accepted nothing and is answered as its reuse.
        return await this.answerReusedKey(res, actor, key, error.binding, payload, correlation);
      }
    } catch (error) {
      return this.sendError(res, error);
    }
  }

  @Get(':id')
  async get(@Param('id') id: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const actor = await this.authenticate(req, res);
    if (!actor) return;
    try {
      const { answer, timeline } = await this.query.status(id, actor.id);
      sendJson(res, 200, { ...answer, timeline });
    } catch (error) {
      this.sendError(res, error);
    }
  }

  /** IETF httpapi idempotency-key draft: other payload → 422; still in flight → 409; done → the stored answer. */
  private async answerReusedKey(
    res: ServerResponse,
    actor: AuthenticatedActor,
    key: string,
    prior: { executionId: string; requestDigest: string },
    payload: KeyedPayload,
    correlation: RequestCorrelation,
  ): Promise<void> {
    if (!this.keys.sameRequest(prior.requestDigest, payload)) {
      return sendProblem(
        res,
        422,
        'idempotency-key-reused',
        'Idempotency-Key reused with a different request',
        `the key "${key}" was first used for another request; use a new key for a new request`,
        { execution_id: prior.executionId },
      );
    }
    const stored = await this.responses.find(actor.id, key);
    if (stored) return this.sendStored(res, stored, correlation);
    const { answer } = await this.query.status(prior.executionId, actor.id);
    if (!ANSWERABLE_STATES.has(answer.state)) {
      return sendProblem(
        res,
        409,
        'request-in-flight',
        'A request with this Idempotency-Key is still in flight',
        `execution ${prior.executionId} is ${answer.state}; ask GET /v1/executions/${prior.executionId}`,
        { execution_id: prior.executionId, state: answer.state },
      );
    }
    return this.answerKeyed(res, actor, key, { ...answer, replay: answer.result !== null }, correlation);
  }

  /**
   * A keyed call's answer. Once its request is complete, the response is kept before it is written
   * (the first one kept wins), so every later reuse of the key gets these very bytes — also one that
   * arrives before this write finished.
   */
  private async answerKeyed(
    res: ServerResponse,
    actor: AuthenticatedActor,
    key: string,
    answer: AgentAnswer,
    correlation: RequestCorrelation,
  ): Promise<void> {
    if (!KEY_COMPLETING_STATES.has(answer.state)) return this.answer(res, answer, correlation);
    // Kept as first sent: a later reuse of the key gets the answer as of this delivery.
    const body = JSON.stringify(asDelivered(answer));
    const kept = await this.responses.keepFirst(actor.id, key, { executionId: answer.execution_id, status: 200, body });
    if (kept.body === body) return this.answer(res, answer, correlation);
    return this.sendStored(res, kept, correlation);
  }

  /** The response first sent for this key, byte for byte, marked as a replay in a header only. */
  private sendStored(res: ServerResponse, stored: StoredResponse, correlation: RequestCorrelation): void {
    const answer = JSON.parse(stored.body) as AgentAnswer;
    res.once('finish', () => this.delivery.recordAfterResponse({ ...answer, replay: true }, 'rest', correlation));
    res
      .writeHead(stored.status, {
        'Content-Type': 'application/json',
        Location: `/v1/executions/${stored.executionId}`,
        'Idempotent-Replayed': 'true',
      })
      .end(stored.body);
  }

  private answer(res: ServerResponse, answer: AgentAnswer, correlation: RequestCorrelation): void {
    const status = ANSWERABLE_STATES.has(answer.state) ? 200 : 202;
    res.once('finish', () => this.delivery.recordAfterResponse(answer, 'rest', correlation));
    sendJson(res, status, asDelivered(answer), { Location: `/v1/executions/${answer.execution_id}` });
  }

  private authenticate(req: IncomingMessage, res: ServerResponse): Promise<AuthenticatedActor | null> {
    return authenticateActor(this.deps, req, res);
  }

  /** What every other 401 carries: with OAuth configured, where its metadata is (RFC 9728 §5.1). */
  private challenge(): Record<string, string> {
    return otherUnauthorizedHeaders(this.deps);
  }

  private sendError(res: ServerResponse, error: unknown): void {
    if (error instanceof ActorLimitError) return sendLimitProblem(res, error);
    if (error instanceof UnknownToolError) return sendProblem(res, 422, 'unknown-tool', 'Unknown tool', error.message);
    if (error instanceof InvalidArgumentsError)
      return sendProblem(res, 422, 'invalid-arguments', 'Arguments violate the tool contract', error.message, {
        errors: error.issues.map((i) => ({ path: i.path, message: i.message })),
      });
    if (error instanceof ExecutionOfAnotherActorError) {
      return sendProblem(
        res,
        401,
        'execution-of-another-actor',
        "This API key does not belong to the execution's actor",
        `execution ${error.executionId} was not started by this API key's actor; only that actor's key can read it`,
        {},
        this.challenge(),
      );
    }
    if (error instanceof ExecutionNotFoundError) return sendProblem(res, 404, 'execution-not-found', 'Execution not found', error.message);
    if (error instanceof RunRefusal || error instanceof RunAttemptNotStarted) {
      const { status, type, title } = RUN_REFUSAL_STATUS[error.code];
      return sendProblem(res, status, type, title, error.message, { code: error.code });
    }
    if (error instanceof RepeatRefusedError)
      return sendProblem(res, 409, 'repeat-refused', 'Deliberate repeat refused', error.message, { execution_id: error.executionId });
    const correlationId = reportInternalError((level, message, fields) => this.log(level, message, fields), error, 'rest executions');
    if (res.headersSent) return void res.end();
    sendProblem(res, 500, 'internal-error', 'Internal error', internalErrorMessage(correlationId), { correlation_id: correlationId });
  }
}

/** Out of bounds: 422, every violation in `errors` by path and bound (never the offending value). */
function sendViolations(res: ServerResponse, violations: readonly BoundViolation[]): void {
  sendProblem(res, 422, 'invalid-request', 'Request out of bounds', describeViolations(violations), { errors: violations });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A matching claim names the key's own actor: it says nothing more, and the body parser never sees it. */
function withoutActorClaim(raw: unknown): unknown {
  if (!isObject(raw)) return raw;
  const { actor: _claim, ...rest } = raw;
  return rest;
}

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : null;
}
