import type { ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CallToolResult,
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestCorrelation } from '@onceport/contracts';
import type { AgentAnswer } from '../answer/agent-answer';
import { ExecutionNotFoundError, InvalidArgumentsError, UnknownToolError } from '../call-tool/call-tool.errors';
import type { CallToolService } from '../call-tool/call-tool.service';
import type { RecordDeliveryService } from '../deliver-result/record-delivery.service';
import type { ServiceLog } from '@onceport/service-kit';
import type { IntakeDependencies } from '../intake-dependencies';
import type { ExecutionWatcher } from '../await-outcome/execution-watcher';
import type { QueryExecutionService } from '../query-execution/query-execution.service';
import { ActorLimitError } from '../limits';
import { limitMcpError } from '../limits/limit-answers';
import { checkToolCall, describeViolations } from '../input-bounds';
import { guardRequestHandlers } from './mcp-error-guard';
import { toolCallInput, toolCallPaths } from './mcp-input-check';
import { TASKS_CAPABILITY, registerTaskHandlers, taskOf } from './mcp-tasks';
import { EXECUTION_STATUS_TOOL, toolCatalog } from './mcp-tool-catalog';

export interface McpRequestScope {
  readonly actor: string;
  /** The session (agent process) this request belongs to; set by the transport on initialize. */
  readonly sessionId: () => string | null;
  /** The HTTP response carrying this request's answers: delivery is recorded when it finishes. */
  readonly response: ServerResponse;
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
  /** Changes to executions, from any replica: `tasks/result` waits on it. */
  readonly watcher: ExecutionWatcher;
}

/** A low-level MCP server for one HTTP request: tools from the contracts, calls through intake. */
export function createMcpServer(services: McpServices, scope: McpRequestScope): Server {
  const server = new Server(
    { name: 'onceport', version: '0.1.0' },
    { capabilities: { tools: { listChanged: false }, tasks: TASKS_CAPABILITY } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolCatalog(services.deps.contracts) }));
  registerTaskHandlers(server, services, scope, { toCallToolResult, toMcpError });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const correlation: RequestCorrelation = { transport: 'mcp', jsonRpcId: extra.requestId, sessionId: scope.sessionId(), requestId: null };
    try {
      // The controller refused out-of-bounds calls before the SDK parsed them; this is the same validator, for the values.
      const checked = checkToolCall(toolCallInput(request.params), toolCallPaths('params'), services.deps.settings);
      if (!checked.ok)
        throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${describeViolations(checked.violations)}`, {
          violations: checked.violations,
        });
      if (request.params.name === EXECUTION_STATUS_TOOL) {
        if (request.params.task)
          throw new McpError(
            ErrorCode.MethodNotFound,
            `${EXECUTION_STATUS_TOOL} answers at once and does not run as a task: call it without "task"`,
          );
        const id = request.params.arguments?.['execution_id'];
        const { answer } = await services.query.status(typeof id === 'string' ? id : '', scope.actor);
        return toCallToolResult(answer);
      }
      const task = request.params.task;
      const { answer } = await services.callTool.call({
        actor: scope.actor,
        agentProcess: scope.sessionId(),
        tool: checked.value.tool,
        arguments: checked.value.arguments,
        intentScope: checked.value.intentScope,
        correlation,
        clientIdempotencyKey: null,
        // A task is answered with the execution it is at once; its outcome is asked for with tasks/get and tasks/result.
        waitMs: task ? 0 : checked.value.waitMs,
        traceparent: scope.traceparent,
        tracestate: scope.tracestate,
        receivedAt: scope.receivedAt,
      });
      if (task) {
        // The task is the execution: nothing is delivered here, the result goes out with tasks/result.
        const { timeline } = await services.query.status(answer.execution_id, scope.actor, { attached: false });
        return { task: taskOf(answer, timeline) };
      }
      // Delivered means written: the answer counts once this HTTP response has finished.
      scope.response.once('finish', () => services.delivery.recordAfterResponse(answer, 'mcp', correlation));
      return toCallToolResult(answer);
    } catch (error) {
      throw toMcpError(error);
    }
  });
  guardRequestHandlers(server, (level, message, fields) => services.log(level, message, fields));
  return server;
}

function toCallToolResult(answer: AgentAnswer): CallToolResult {
  const isError = answer.state === 'failed' || answer.state === 'denied';
  return {
    content: [{ type: 'text', text: `${answer.next_step}\n\n${JSON.stringify(answer)}` }],
    structuredContent: answer as unknown as Record<string, unknown>,
    isError,
  };
}

function toMcpError(error: unknown): Error {
  if (error instanceof ActorLimitError) return limitMcpError(error);
  if (error instanceof UnknownToolError) return new McpError(ErrorCode.InvalidParams, error.message, { code: error.code });
  if (error instanceof InvalidArgumentsError) {
    return new McpError(ErrorCode.InvalidParams, error.message, {
      code: error.code,
      issues: error.issues.map((i) => ({ path: i.path, message: i.message })),
    });
  }
  if (error instanceof ExecutionNotFoundError) return new McpError(ErrorCode.InvalidParams, error.message, { code: error.code });
  return error instanceof Error ? error : new Error(String(error));
}
