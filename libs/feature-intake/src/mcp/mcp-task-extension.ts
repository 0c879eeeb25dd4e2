import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import type { ExecutionStatus } from '@onceport/contracts';
import { z } from 'zod';
import type { AgentAnswer } from '../answer/agent-answer';
import { asDelivered } from '../answer/as-delivered';
import { ExecutionNotFoundError } from '../call-tool/call-tool.errors';
import { CancelRefusedError } from '../cancel-execution/cancel-execution.service';
import type { TimelineEntry } from '../query-execution/query-execution.service';
import { AnyResult, TaskParams, taskLookup } from './mcp-task-lookup';
import type { McpRequestScope, McpServerTools, McpServices } from './mcp-server.factory';

/** The Tasks extension of MCP 2026-07-28 (SEP-2663), as advertised in `server/discover`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

/** How often a client is asked to poll `tasks/get` (ms). */
export const TASK_POLL_INTERVAL_MS = 500;

type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The extension's `Task`: an execution, its id the task id. */
export interface ExtensionTask {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly ttlMs: number | null;
  readonly pollIntervalMs: number;
}

/** States whose outcome a call has not got yet: under 2026-07-28 such a call answers with a task. */
export function runsAsTask(state: ExecutionStatus): boolean {
  return taskStatusOf(state, null) === 'working';
}

/**
 * An execution's state as a task status. Everything that will not change any more is `completed`
 * with the result the call would have returned (a failed or denied call is a tool result with
 * `isError`, not a JSON-RPC error: the extension keeps `failed` for those); a cancelled execution is
 * `cancelled`. Awaiting a human and an unknown outcome are `working`: the client has no input to give
 * (`input_required` is for that), and the message says which it is — unknown is never failed.
 */
export function taskStatusOf(state: ExecutionStatus, denialCode: string | null): TaskStatus {
  switch (state) {
    case 'accepted':
    case 'authorized':
    case 'dispatched':
    case 'dispatched_unknown':
    case 'awaiting_approval':
    case 'needs_review':
      return 'working';
    case 'denied':
      return denialCode === 'cancelled_by_caller' ? 'cancelled' : 'completed';
    case 'completed':
    case 'completed_result_not_delivered':
    case 'failed':
    case 'expired':
    case 'reverted':
      return 'completed';
    default: {
      const _exhaustive: never = state;
      return _exhaustive;
    }
  }
}

/** Whether the request's per-request capabilities (the 2026-07-28 `_meta` envelope) declare the extension. */
export function clientDeclaresTasks(envelope: unknown): boolean {
  const capabilities = isObject(envelope) ? envelope[CLIENT_CAPABILITIES_META] : undefined;
  const extensions = isObject(capabilities) ? capabilities['extensions'] : undefined;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** The task an execution is; its ttl is the tool's correlation window (past it, a retry no longer attaches). */
export function taskOf(services: McpServices, answer: AgentAnswer, timeline: readonly TimelineEntry[]): ExtensionTask {
  const createdAt = timeline[0]?.at ?? new Date().toISOString();
  const window = services.deps.contracts.get(answer.tool)?.correlationWindowMs;
  return {
    taskId: answer.execution_id,
    status: taskStatusOf(answer.state, answer.denial?.code ?? null),
    statusMessage: answer.next_step,
    createdAt,
    lastUpdatedAt: timeline[timeline.length - 1]?.at ?? createdAt,
    ttlMs: window && window > 0 ? window : null,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
}

/** `tools/call` answered with a task: the execution is in the store already, so `tasks/get` resolves on any replica. */
export async function createTaskResult(services: McpServices, scope: McpRequestScope, answer: AgentAnswer) {
  const { timeline } = await services.query.status(answer.execution_id, scope.actor, { attached: false });
  return { resultType: 'task' as const, ...taskOf(services, answer, timeline) };
}

const UpdateParams = TaskParams.extend({ inputResponses: z.record(z.string(), z.unknown()).optional() });

/** `tasks/get`, `tasks/update` and `tasks/cancel`, each answered from the store for the calling actor. */
export function registerTaskExtensionHandlers(server: Server, services: McpServices, scope: McpRequestScope, tools: McpServerTools): void {
  const load = taskLookup(services, scope, tools);

  server.setRequestHandler(
    'tasks/get',
    { params: TaskParams, result: AnyResult },
    tools.guard('tasks/get', async ({ taskId }, ctx) => {
      const { answer, timeline } = await load(taskId);
      const task = taskOf(services, answer, timeline);
      if (task.status !== 'completed') return { ...task };
      // A completed task carries the call's result: this response is its delivery, recorded once written.
      const correlation = { transport: 'mcp' as const, jsonRpcId: ctx.mcpReq.id, sessionId: null, requestId: null };
      scope.response.once('finish', () => services.delivery.recordAfterResponse(answer, 'mcp', correlation));
      const delivered = asDelivered(answer);
      return { ...task, statusMessage: delivered.next_step, result: tools.toCallToolResult(delivered) };
    }),
  );

  // Onceport never asks a client for input mid-task: there is nothing outstanding to answer.
  server.setRequestHandler(
    'tasks/update',
    { params: UpdateParams, result: AnyResult },
    tools.guard('tasks/update', async ({ taskId }) => {
      await load(taskId);
      return {};
    }),
  );

  server.setRequestHandler(
    'tasks/cancel',
    { params: TaskParams, result: AnyResult },
    tools.guard('tasks/cancel', async ({ taskId }, ctx) => {
      try {
        await services.cancel.cancel(taskId, scope.actor, `mcp:tasks/cancel:${String(ctx.mcpReq.id)}`);
        return {};
      } catch (error) {
        if (error instanceof ExecutionNotFoundError)
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${taskId}`, { code: error.code });
        if (error instanceof CancelRefusedError)
          throw new ProtocolError(ProtocolErrorCode.InvalidRequest, error.message, { code: error.code, taskId, state: error.state });
        throw error;
      }
    }),
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
