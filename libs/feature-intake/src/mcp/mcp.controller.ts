import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { All, type BeforeApplicationShutdown, Controller, Inject, type OnApplicationShutdown, Req, Res, UseFilters } from '@nestjs/common';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import {
  type JSONRPCResponse,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
  createMcpHandler,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  isLegacyRequest,
} from '@modelcontextprotocol/server';
import { ExecutionStatus } from '@onceport/contracts';
import type { AgentAnswer } from '../answer/agent-answer';
import { ExecutionWatcher } from '../await-outcome/execution-watcher';
import { CallToolService } from '../call-tool/call-tool.service';
import { CancelExecutionService } from '../cancel-execution/cancel-execution.service';
import { RecordDeliveryService } from '../deliver-result/record-delivery.service';
import { INTAKE_DEPENDENCIES, type IntakeDependencies } from '../intake-dependencies';
import { QueryExecutionService } from '../query-execution/query-execution.service';
import {
  BodyTooLargeError,
  MalformedJsonError,
  PG_POOL,
  SERVICE_LOG,
  type ServiceLog,
  bearerChallenge,
  readJsonBody,
} from '@onceport/service-kit';
import type { Pool } from 'pg';
import { authenticateBearer, refusalHeaders, toolScopeRefusal } from '../auth/authenticate-bearer';
import { toolsOutsideTokenScope } from '../auth/oauth/tool-scope';
import { EXECUTION_STATUS_TOOL } from './mcp-tool-catalog';
import { ACTOR_CLAIM_META, type ActorClaim, actorClaimMismatch, headerActorClaims } from '../auth/actor-claim';
import { boundedTraceContext, checkProcessId } from '../input-bounds';
import { IntakeErrorFilter } from '../internal-errors/intake-error.filter';
import { batchOverCap } from '../limits/batch-cap';
import { checkHostOrigin } from './host-origin-policy';
import { invalidJsonRpc, jsonRpcError } from './json-rpc-shape';
import { refusedMcpBody } from './mcp-input-check';
import { McpSessions } from './mcp-sessions';
import { type McpRequestScope, type McpServices, createMcpServer } from './mcp-server.factory';
import { McpStreamNotices } from './mcp-stream-notices';
import { resumeStream } from './mcp-stream-resumption';
import { McpStreamEventWrites } from './mcp-stream-event-writes';
import { PgMcpEventStore } from './pg-mcp-event-store';

/**
 * MCP Streamable HTTP at /mcp, both eras on one endpoint (v2 SDK). 2026-07-28 requests are stateless:
 * each is served by the SDK's handler. 2025 requests keep their sessions, which live in PostgreSQL
 * with their stream events, so any replica serves any session. Either way a dropped connection never
 * cancels the work its request started: the execution carries on and a re-issue attaches to it.
 */
@Controller('mcp')
@UseFilters(IntakeErrorFilter)
export class McpController implements BeforeApplicationShutdown, OnApplicationShutdown {
  /** Created at the first resumed stream: a process that never resumes holds no LISTEN connection. */
  private notices: McpStreamNotices | null = null;
  private readonly resumedByActor = new Map<string, number>();
  /** Every request's SSE events, in group commits across the process's requests. */
  private readonly streamEventWrites: McpStreamEventWrites;

  constructor(
    @Inject(INTAKE_DEPENDENCIES) private readonly deps: IntakeDependencies,
    private readonly callTool: CallToolService,
    private readonly query: QueryExecutionService,
    private readonly delivery: RecordDeliveryService,
    private readonly cancel: CancelExecutionService,
    @Inject(ExecutionWatcher) private readonly watcher: ExecutionWatcher,
    @Inject(McpSessions) private readonly sessions: McpSessions,
    /** Stream events and resumption notices (plain SQL on the kit's pool, per request). */
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_LOG) private readonly log: ServiceLog,
  ) {
    this.streamEventWrites = new McpStreamEventWrites(pool, (error, event) =>
      // Already sent: only a resumption past it is lost (it waits, then the client calls again and is answered from the ledger).
      this.log('warn', 'an SSE event sent could not be stored: its stream cannot be resumed past it', {
        error: String(error).slice(0, 500),
        streamId: event.streamId.slice(0, 100),
        sessionId: event.sessionId.slice(0, 100),
      }),
    );
  }

  @All()
  async handle(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const receivedAt = Date.now();
    // Before anything else: a DNS-rebinding page has no key, but must not even learn that one is asked for.
    const refused = checkHostOrigin(this.deps.settings.hostOrigin, req.headers);
    if (refused) return send(res, refused.status, jsonRpcError(-32000, refused.message));
    // An API key or (with an oauth section in the actors file) a bearer JWT; the refusal names the resource metadata.
    const auth = await authenticateBearer(this.deps, req);
    if (!auth.ok) {
      for (const [name, value] of Object.entries(refusalHeaders(auth))) res.setHeader(name, value);
      return send(res, auth.status, jsonRpcError(-32001, `${auth.status === 403 ? 'Forbidden' : 'Unauthorized'}: ${auth.message}`));
    }
    const actor = auth.actor;
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = await readJsonBody(req, this.deps.settings.maxBodyBytes);
      } catch (error) {
        if (error instanceof BodyTooLargeError)
          return send(res, 413, jsonRpcError(-32600, `Request too large: the limit is ${error.limit} bytes`));
        if (error instanceof MalformedJsonError) return send(res, 400, jsonRpcError(-32700, `Parse error: ${error.message}`));
        throw error;
      }
      // Bounds first: nothing below (zod, the SDK, the store) may see a body nested 20,000 deep or holding NUL.
      const refused = refusedMcpBody(body, this.deps.settings);
      if (refused) return send(res, refused.status, refused.body);
      const invalid = invalidJsonRpc(body);
      if (invalid) return send(res, 400, jsonRpcError(-32600, `Invalid Request: ${invalid}`));
      const overCap = batchOverCap(body, this.deps.settings.maxBatchCalls);
      if (overCap)
        return send(
          res,
          400,
          jsonRpcError(-32600, `Invalid Request: ${overCap}`, null, { max_batch_calls: this.deps.settings.maxBatchCalls }),
        );
    }
    // A token narrowed to some tools calls only those (the status tool reads the caller's own executions).
    const outside = toolsOutsideTokenScope(actor, body, [EXECUTION_STATUS_TOOL]);
    if (outside.length > 0) {
      const refusal = toolScopeRefusal(this.deps, outside);
      for (const [name, value] of Object.entries(refusalHeaders(refusal))) res.setHeader(name, value);
      return send(res, 403, jsonRpcError(-32001, `Forbidden: ${refusal.message}`));
    }
    // The actor is the key's: a claim naming anyone else is refused before anything is recorded.
    const mismatch = actorClaimMismatch(actor, [...headerActorClaims(req), ...metaActorClaims(body)]);
    if (mismatch) return send(res, 401, jsonRpcError(-32001, `Unauthorized: ${mismatch.detail}`));
    const trace = boundedTraceContext(headerOf(req, 'traceparent'), headerOf(req, 'tracestate'));
    const scope = { actor: actor.id, response: res, ...trace, receivedAt };
    // The SDK's own classification, so this branch never disagrees with the handler it routes to. Given
    // the body parsed above, it does not clone the request and parse it again: less than half the
    // CPU per request (110–155 → 45 µs, conversion included: tools/bench/scripts/mcp-classify-cost.cjs).
    if (!(await isLegacyRequest(await toWebRequest(req, body), body))) return this.serveModern(req, res, body, scope);
    return this.serveLegacy(req, res, body, scope);
  }

  /** 2026-07-28: no session, the envelope in `_meta`; the SDK validates the revision's headers and envelope. */
  private async serveModern(req: IncomingMessage, res: ServerResponse, body: unknown, scope: RequestBasics): Promise<void> {
    const handler = createMcpHandler(() => createMcpServer(this.services(), { ...scope, era: 'modern', sessionId: () => null }), {
      legacy: 'reject',
    });
    await toNodeHandler(handler, { onerror: (error) => this.log('error', 'mcp handler failed', { error: String(error) }) })(req, res, body);
  }

  /** 2025-11-25 / 2025-06-18: `initialize` opens a session in PostgreSQL; every later request names it. */
  private async serveLegacy(req: IncomingMessage, res: ServerResponse, body: unknown, scope: RequestBasics): Promise<void> {
    const claimedSession = headerOf(req, 'mcp-session-id');
    // An id that cannot be one intake issued is not looked up: the client starts a new session.
    if (!checkProcessId(claimedSession, 'Mcp-Session-Id').ok)
      return send(res, 404, jsonRpcError(-32001, 'Session not found: initialize a new session'));
    if (claimedSession) {
      const owner = await this.sessions.actorOf(claimedSession);
      // A session intake never issued (or ended, or expired): the client starts a new one.
      if (owner === null) return send(res, 404, jsonRpcError(-32001, 'Session not found: initialize a new session'));
      // A session of another actor: this key does not belong to it (its actor is not named).
      if (owner !== scope.actor) {
        res.setHeader('WWW-Authenticate', bearerChallenge({ resourceMetadata: this.deps.oauth?.metadataUrl, error: 'invalid_token' }));
        return send(
          res,
          401,
          jsonRpcError(
            -32001,
            "Unauthorized: this API key does not belong to the actor of this MCP session; use the key of the session's actor, or initialize a new session with this key",
          ),
        );
      }
    }
    if (req.method === 'DELETE') {
      if (!claimedSession) return send(res, 400, jsonRpcError(-32000, 'Bad Request: Mcp-Session-Id header is required'));
      // Its earlier answers' SSE events may still be on their way to the store (they are sent before
      // their commit): written first, they go with the session's other events. Not waited for long,
      // and one written later (or by another replica) is the pruner's: an ended session's stream is
      // never served again.
      await this.streamEventWrites.settledFor(claimedSession, SESSION_END_WAITS_FOR_WRITES_MS);
      await this.sessions.end(claimedSession);
      return void res.writeHead(200).end();
    }
    const lastEventId = headerOf(req, 'last-event-id');
    if (req.method === 'GET' && claimedSession && lastEventId) return this.resume(req, res, scope.actor, claimedSession, lastEventId);

    const initializes = req.method === 'POST' && isInitialize(body);
    if (!initializes && !claimedSession)
      return send(res, 400, jsonRpcError(-32000, 'Bad Request: Mcp-Session-Id header is required (initialize a session first)'));
    let sessionId: string | null = claimedSession;
    const eventStore = new PgMcpEventStore(this.pool, () => sessionId ?? undefined, requestIdsOf(body), this.streamEventWrites);
    // The session lives in PostgreSQL, not in a transport: `initialize` gets a transport that issues
    // one; every later request a stateless transport, its session already checked above.
    const transport = initializes
      ? new NodeStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: async (id) => {
            sessionId = id;
            await this.sessions.register(id, scope.actor);
          },
          eventStore,
        })
      : new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined, eventStore });
    const server = createMcpServer(this.services(), { ...scope, era: 'legacy', sessionId: () => sessionId });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  private services(): McpServices {
    return {
      deps: this.deps,
      log: this.log,
      callTool: this.callTool,
      query: this.query,
      delivery: this.delivery,
      watcher: this.watcher,
      cancel: this.cancel,
    };
  }

  /** A dropped stream picked up again, on whichever replica the client reached (see {@link resumeStream}). */
  private async resume(req: IncomingMessage, res: ServerResponse, actor: string, sessionId: string, lastEventId: string): Promise<void> {
    if (!headerOf(req, 'accept')?.includes('text/event-stream'))
      return send(res, 406, jsonRpcError(-32000, 'Not Acceptable: Client must accept text/event-stream'));
    const version = headerOf(req, 'mcp-protocol-version');
    if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return send(
        res,
        400,
        jsonRpcError(
          -32000,
          `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
        ),
      );
    }
    const open = this.resumedByActor.get(actor) ?? 0;
    const cap = this.deps.settings.resumedStreamsPerActor;
    if (open >= cap) {
      res.setHeader('Retry-After', String(RESUME_RETRY_AFTER_S));
      return send(
        res,
        429,
        jsonRpcError(
          -32000,
          `Too many resumed streams: this actor already holds ${cap} open here; close one, or resume again in ${RESUME_RETRY_AFTER_S} s`,
        ),
      );
    }
    this.resumedByActor.set(actor, open + 1);
    this.notices ??= new McpStreamNotices(this.pool);
    const watch = await this.notices.watch(sessionId);
    try {
      await resumeStream(
        res,
        {
          store: new PgMcpEventStore(this.pool, () => sessionId, [], this.streamEventWrites),
          sessionId,
          lastEventId,
          // An answer written here was delivered here: the POST that started the call never finished.
          onResponseWritten: (response) => this.recordDelivery(response, sessionId),
          watch,
        },
        {
          pollMs: RESUME_POLL_MS,
          keepAliveMs: KEEP_ALIVE_MS,
          followMs: this.deps.settings.maxWaitMs + RESUME_FOLLOW_MARGIN_MS,
          unknownIdGraceMs: UNKNOWN_EVENT_ID_GRACE_MS,
        },
      );
    } finally {
      watch.close();
      const left = (this.resumedByActor.get(actor) ?? 1) - 1;
      if (left > 0) this.resumedByActor.set(actor, left);
      else this.resumedByActor.delete(actor);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    // Events already sent are still being written: finish before the pool closes.
    await this.streamEventWrites.settled();
  }

  /** Nest calls this once the HTTP server is closed (after the drain): the LISTEN connection goes back. */
  onApplicationShutdown(): void {
    this.notices?.close();
    this.notices = null;
  }

  private recordDelivery(response: JSONRPCResponse, sessionId: string): void {
    const answer = answerIn(response);
    if (!answer) return;
    this.delivery.recordAfterResponse(answer, 'mcp', { transport: 'mcp', jsonRpcId: response.id ?? null, sessionId, requestId: null });
  }
}

/**
 * A resumed stream reads the store when a notice says its session has new events, and at least this
 * often in case a notice was lost (sent while this process's LISTEN connection was down).
 */
const RESUME_POLL_MS = 5_000;
/** What a refused resumption (429) is told to wait. */
const RESUME_RETRY_AFTER_S = 5;
const KEEP_ALIVE_MS = 15_000;
/** A call is answered at most the longest wait after it started; past that, the client resumes again. */
const RESUME_FOLLOW_MARGIN_MS = 30_000;
/** A request stream's event is sent before its row commits: a resumption that asks for it first waits this long for it. */
const UNKNOWN_EVENT_ID_GRACE_MS = 3_000;
/** How long ending a session waits for its SSE events still being written here (the pruner takes a later one). */
const SESSION_END_WAITS_FOR_WRITES_MS = 2_000;

/** What every request's scope holds before its era is known. */
type RequestBasics = Omit<McpRequestScope, 'era' | 'sessionId'>;

function isInitialize(body: unknown): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some((message) => isJSONRPCRequest(message) && message.method === 'initialize');
}

/** The JSON-RPC requests of a POST body: its stream is complete once each has its response. */
function requestIdsOf(body: unknown): RequestId[] {
  const messages: unknown[] = Array.isArray(body) ? body : body === undefined ? [] : [body];
  return messages.flatMap((message) => (isJSONRPCRequest(message) ? [message.id] : []));
}

/** Actor claims in the `_meta` of the JSON-RPC requests of a POST body. */
function metaActorClaims(body: unknown): ActorClaim[] {
  const messages: unknown[] = Array.isArray(body) ? body : body === undefined ? [] : [body];
  return messages.flatMap((message) => {
    if (!isJSONRPCRequest(message)) return [];
    const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
    return meta && ACTOR_CLAIM_META in meta
      ? [{ where: `_meta "${ACTOR_CLAIM_META}" of ${message.method}`, value: meta[ACTOR_CLAIM_META] }]
      : [];
  });
}

/** The agent answer a tool call's result carries (see `toCallToolResult`), or null. */
function answerIn(response: JSONRPCResponse): AgentAnswer | null {
  if (!isJSONRPCResultResponse(response)) return null;
  const content = response.result['structuredContent'];
  if (typeof content !== 'object' || content === null) return null;
  const answer = content as Partial<AgentAnswer>;
  const ok =
    typeof answer.execution_id === 'string' && typeof answer.replay === 'boolean' && ExecutionStatus.safeParse(answer.state).success;
  return ok ? (answer as AgentAnswer) : null;
}

function headerOf(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function send(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}
