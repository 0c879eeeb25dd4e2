import type { ServerResponse } from 'node:http';
import { type CallToolResult, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { MCP_RESULT_CONTENT_TYPE, type RequestCorrelation } from '@onceport/contracts';
import type { ServiceLog } from '@onceport/service-kit';
import type { AgentAnswer } from '../answer/agent-answer';
import { asDelivered } from '../answer/as-delivered';
import { ExecutionNotFoundError, InvalidArgumentsError, UnknownToolError } from '../call-tool/call-tool.errors';
import type { CallToolService } from '../call-tool/call-tool.service';
import type { CancelExecutionService } from '../cancel-execution/cancel-execution.service';
import type { RecordDeliveryService } from '../deliver-result/record-delivery.service';
import type { ExecutionWatcher } from '../await-outcome/execution-watcher';
import type { IntakeDependencies } from '../intake-dependencies';
import type { QueryExecutionService } from '../query-execution/query-execution.service';
import { ActorLimitError } from '../limits';
import { limitMcpError } from '../limits/limit-answers';
import { boundedTraceContext, checkToolCall, describeViolations } from '../input-bounds';
import { RunRefusal } from '@onceport/domain';
import { RepeatRefusedError } from '../runs/run-errors';
import { RunAttemptNotStarted } from '../runs/runs.service';
import { guarded } from './mcp-handler-guard';
import { toolCallInput, toolCallPaths } from './mcp-input-check';
import { LEGACY_TASKS_CAPABILITY, legacyTaskResult, registerLegacyTaskHandlers } from './mcp-legacy-tasks';
import { TASKS_EXTENSION, clientDeclaresTasks, createTaskResult, registerTaskExtensionHandlers, runsAsTask } from './mcp-task-extension';
import { EXECUTION_STATUS_TOOL, toolCatalog } from './mcp-tool-catalog';

/** Which MCP era a request speaks: 2025 revisions (`initialize`, sessions) or 2026-07-28 (per-request envelope). */
export type McpEra = 'legacy' | 'modern';

export interface McpRequestScope {
  readonly era: McpEra;
  readonly actor: string;
  /** The session (agent process) of a 2025-era request; set by the transport on initialize. Always null for 2026-07-28. */
  readonly sessionId: () => string | null;
  /** The HTTP response carrying this request's answers: delivery is recorded when it finishes. */
  readonly response: ServerResponse;
  /** From the HTTP headers; a request's `_meta` trace context takes precedence. */
  readonly traceparent: string | null;
  readonly tracestate: string | null;
  readonly receivedAt: number;
}

export interface McpServices {
  readonly deps: IntakeDependencies;
  /** Where a handler's unexpected failure is logged. */
  readonly log: ServiceLog;
  readonly callTool: CallToolService;
  readonly query: QueryExecutionService;
  readonly delivery: RecordDeliveryService;
  /** Changes to executions, from any replica: a 2025 `tasks/result` waits on it. */
  readonly watcher: ExecutionWatcher;
  readonly cancel: CancelExecutionService;
}

export interface McpServerTools {
  readonly toCallToolResult: (answer: AgentAnswer) => CallToolResult;
  readonly toMcpError: (error: unknown) => Error;
  /** A handler whose failures reach the client as errors it may see (see `guarded`). */
  readonly guard: <A extends unknown[], R>(method: string, handler: (...args: A) => Promise<R>) => (...args: A) => Promise<R>;
}

/** A low-level MCP server (v2 SDK) for one HTTP request of either era: tools from the contracts, calls through intake. */
export function createMcpServer(services: McpServices, scope: McpRequestScope): Server {
  const capabilities =
    scope.era === 'modern'
      ? { tools: { listChanged: false }, extensions: { [TASKS_EXTENSION]: {} } }
      : { tools: { listChanged: false }, tasks: LEGACY_TASKS_CAPABILITY };
  const server = new Server({ name: 'onceport', version: '0.1.0' }, { capabilities });
  const tools: McpServerTools = {
    toCallToolResult,
    toMcpError,
    guard: (method, handler) => guarded(method, (level, message, fields) => services.log(level, message, fields), handler),
  };
  server.setRequestHandler(
    'tools/list',
    tools.guard('tools/list', async () => ({ tools: toolCatalog(services.deps.contracts, scope.era) })),
  );
  if (scope.era === 'modern') registerTaskExtensionHandlers(server, services, scope, tools);
  else registerLegacyTaskHandlers(server, services, scope, tools);

  server.setRequestHandler(
    'tools/call',
    tools.guard('tools/call', async (request, ctx) => {
      const params = request.params as Record<string, unknown> & { task?: unknown; _meta?: Record<string, unknown> };
      const correlation: RequestCorrelation = { transport: 'mcp', jsonRpcId: ctx.mcpReq.id, sessionId: scope.sessionId(), requestId: null };
      try {
        // The controller refused out-of-bounds calls before the SDK parsed them; this is the same validator, for the values.
        const checked = checkToolCall(toolCallInput(params), toolCallPaths('params'), services.deps.settings);
        if (!checked.ok)
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: ${describeViolations(checked.violations)}`, {
            violations: checked.violations,
          });
        const legacyTask = scope.era === 'legacy' && params.task !== undefined;
        if (checked.value.tool === EXECUTION_STATUS_TOOL) {
          if (legacyTask)
            throw new ProtocolError(
              ProtocolErrorCode.MethodNotFound,
              `${EXECUTION_STATUS_TOOL} answers at once and does not run as a task: call it without "task"`,
            );
          const id = (params['arguments'] as Record<string, unknown> | undefined)?.['execution_id'];
          const { answer } = await services.query.status(typeof id === 'string' ? id : '', scope.actor);
          return toCallToolResult(answer);
        }
        const trace = traceContextOf(params._meta, scope);
        const { answer } = await services.callTool.call({
          actor: scope.actor,
          agentProcess: scope.sessionId(),
          tool: checked.value.tool,
          arguments: checked.value.arguments,
          intentScope: checked.value.intentScope,
          run: checked.value.run,
          repeat: checked.value.repeat,
          correlation,
          clientIdempotencyKey: null,
          // A 2025 task is answered with the execution it is at once; its outcome is asked for with tasks/get and tasks/result.
          waitMs: legacyTask ? 0 : checked.value.waitMs,
          traceparent: trace.traceparent,
          tracestate: trace.tracestate,
          receivedAt: scope.receivedAt,
        });
        // Both task shapes are results the v2 typings do not list for tools/call (the 2025 one, the extension's).
        if (legacyTask) return (await legacyTaskResult(services, scope, answer)) as unknown as CallToolResult;
        // 2026-07-28: an outcome not known within the wait becomes a task, for a client that declared the extension.
        if (scope.era === 'modern' && runsAsTask(answer.state) && clientDeclaresTasks(ctx.mcpReq.envelope))
          return (await createTaskResult(services, scope, answer)) as unknown as CallToolResult;
        // Delivered means written: the answer counts once this HTTP response has finished.
        scope.response.once('finish', () => services.delivery.recordAfterResponse(answer, 'mcp', correlation));
        return toCallToolResult(asDelivered(answer));
      } catch (error) {
        throw toMcpError(error);
      }
    }),
  );
  return server;
}

/** The agent's trace context: `_meta` (2026-07-28 names it there) before the HTTP headers; bounded either way. */
function traceContextOf(
  meta: Record<string, unknown> | undefined,
  scope: McpRequestScope,
): { traceparent: string | null; tracestate: string | null } {
  const fromMeta = typeof meta?.['traceparent'] === 'string' ? meta['traceparent'] : null;
  if (fromMeta === null) return { traceparent: scope.traceparent, tracestate: scope.tracestate };
  const state = typeof meta?.['tracestate'] === 'string' ? meta['tracestate'] : null;
  return boundedTraceContext(fromMeta, state);
}

export function toCallToolResult(answer: AgentAnswer): CallToolResult {
  const isError = answer.state === 'failed' || answer.state === 'denied';
  const upstream = upstreamContentOf(answer);
  // An MCP upstream's own content blocks (text, images, resource links) go back as it sent them, after ours.
  const shown = upstream
    ? { ...answer, result: answer.result && { ...answer.result, body: '(the upstream content blocks follow)' } }
    : answer;
  return {
    content: [{ type: 'text', text: `${answer.next_step}\n\n${JSON.stringify(shown)}` }, ...(upstream ?? [])],
    structuredContent: answer as unknown as Record<string, unknown>,
    isError,
  };
}

/** The content blocks of a result an MCP upstream returned (stored as `MCP_RESULT_CONTENT_TYPE`), or null. */
function upstreamContentOf(answer: AgentAnswer): CallToolResult['content'] | null {
  if (answer.result?.content_type !== MCP_RESULT_CONTENT_TYPE) return null;
  const content = (answer.result.body as { content?: unknown } | null)?.content;
  return Array.isArray(content) ? (content as CallToolResult['content']) : null;
}

function toMcpError(error: unknown): Error {
  if (error instanceof ActorLimitError) return limitMcpError(error);
  if (error instanceof UnknownToolError) return new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, { code: error.code });
  if (error instanceof InvalidArgumentsError) {
    return new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, {
      code: error.code,
      issues: error.issues.map((i) => ({ path: i.path, message: i.message })),
    });
  }
  if (error instanceof ExecutionNotFoundError)
    return new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, { code: error.code });
  // Nothing was recorded for a call its run or its repeat refused: the code says which rule.
  if (error instanceof RunRefusal || error instanceof RunAttemptNotStarted)
    return new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, { code: error.code });
  if (error instanceof RepeatRefusedError)
    return new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, { code: error.code, execution_id: error.executionId });
  return error instanceof Error ? error : new Error(String(error));
}
