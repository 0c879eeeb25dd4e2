import {
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Server,
  type ServerCapabilities,
  type Task,
  type TaskStatus,
} from '@modelcontextprotocol/server';
import type { ExecutionStatus } from '@onceport/contracts';
import type { AgentAnswer } from '../answer/agent-answer';
import { asDelivered } from '../answer/as-delivered';
import type { TimelineEntry } from '../query-execution/query-execution.service';
import { AnyResult, TaskParams, taskLookup } from './mcp-task-lookup';
import type { McpRequestScope, McpServerTools, McpServices } from './mcp-server.factory';

/**
 * The 2025-11-25 experimental tasks (what 2025-era clients, e.g. the v1 SDK, speak) over executions: a task is an execution, its
 * task id the execution id. Nothing about a task lives in this process: every `tasks/*` request is
 * answered from the store, so any intake replica answers for a task any other replica created.
 *
 * Declared as far as it goes: task-augmented `tools/call`, `tasks/get` and `tasks/result`. No
 * `tasks/list` and no `tasks/cancel` (an execution is not cancelled by its caller; a `tasks/cancel`
 * is refused with an error that says so).
 */
export const LEGACY_TASKS_CAPABILITY: NonNullable<ServerCapabilities['tasks']> = { requests: { tools: { call: {} } } };

/** How often a client is asked to poll `tasks/get` (ms). */
export const TASK_POLL_INTERVAL_MS = 500;

/** An execution's state as a task status, honestly: waiting on a human is not "working" on it. */
export function taskStatusOf(state: ExecutionStatus): TaskStatus {
  switch (state) {
    case 'accepted':
    case 'authorized':
    case 'dispatched':
    case 'dispatched_unknown':
      return 'working';
    case 'awaiting_approval':
    case 'needs_review':
      return 'input_required';
    case 'completed':
    case 'completed_result_not_delivered':
      return 'completed';
    case 'failed':
    case 'denied':
      return 'failed';
    case 'expired':
    case 'reverted':
      // Nobody asked for either: the execution ended without an outcome, which is a failure of the task.
      return 'failed';
    default: {
      const _exhaustive: never = state;
      return _exhaustive;
    }
  }
}

const TERMINAL: ReadonlySet<TaskStatus> = new Set<TaskStatus>(['completed', 'failed', 'cancelled']);

/** The task an execution is, as `tasks/get` and a task-augmented `tools/call` answer it. */
export function taskOf(answer: AgentAnswer, timeline: readonly TimelineEntry[]): Task {
  const createdAt = timeline[0]?.at ?? new Date().toISOString();
  return {
    taskId: answer.execution_id,
    status: taskStatusOf(answer.state),
    statusMessage: answer.next_step,
    // Executions are kept, with their results, until an operator removes them.
    ttl: null,
    createdAt,
    lastUpdatedAt: timeline[timeline.length - 1]?.at ?? createdAt,
    pollInterval: TASK_POLL_INTERVAL_MS,
  };
}

/**
 * A task-augmented `tools/call`'s answer: the task, plus the content a tools/call result must carry
 * in the 2025 wire schema (the v2 SDK refuses a task without it) — a sentence saying how to follow it.
 */
export async function legacyTaskResult(services: McpServices, scope: McpRequestScope, answer: AgentAnswer) {
  // The task is the execution: nothing is delivered here, the result goes out with tasks/result.
  const { timeline } = await services.query.status(answer.execution_id, scope.actor, { attached: false });
  const task = taskOf(answer, timeline);
  const text = `Task ${task.taskId} (the execution) is ${task.status}: ${answer.next_step}`;
  return { task, content: [{ type: 'text' as const, text }] };
}

/** `tasks/get`, `tasks/result` and a refusing `tasks/cancel`, all read from the store for the calling actor. */
export function registerLegacyTaskHandlers(server: Server, services: McpServices, scope: McpRequestScope, options: McpServerTools): void {
  const load = taskLookup(services, scope, options);

  // The 2025 codec knows these methods; the schemas here only type them (the v2 typings list 2026 methods).
  server.setRequestHandler(
    'tasks/get',
    { params: TaskParams, result: AnyResult },
    options.guard('tasks/get', async (request) => {
      const { answer, timeline } = await load(request.taskId);
      return taskOf(answer, timeline);
    }),
  );

  server.setRequestHandler(
    'tasks/result',
    { params: TaskParams, result: AnyResult },
    options.guard('tasks/result', async (request, extra) => {
      const taskId = request.taskId;
      // Block while the execution is being worked on, at most the longest wait a call may ask for.
      const deadline = Date.now() + services.deps.settings.maxWaitMs;
      let loaded: Awaited<ReturnType<typeof load>>;
      for (;;) {
        // Listen before reading, so a change between the read and the wait is not missed.
        const change = services.watcher.nextChange(taskId, deadline);
        try {
          loaded = await load(taskId);
          if (taskStatusOf(loaded.answer.state) !== 'working' || services.watcher.waitIsOver(deadline)) break;
          await change.next;
        } finally {
          change.cancel();
        }
      }
      const { answer } = loaded;
      if (taskStatusOf(answer.state) === 'working') {
        throw new ProtocolError(
          REQUEST_TIMEOUT,
          `Task ${taskId} is still working (execution state ${answer.state}); poll tasks/get and ask tasks/result again. ${answer.next_step}`,
          {
            taskId,
            status: 'working',
            state: answer.state,
          },
        );
      }
      // Delivered means written, as for a tool call: the answer counts once this HTTP response has finished.
      const correlation = { transport: 'mcp' as const, jsonRpcId: extra.mcpReq.id, sessionId: scope.sessionId(), requestId: null };
      scope.response.once('finish', () => services.delivery.recordAfterResponse(answer, 'mcp', correlation));
      const result = options.toCallToolResult(asDelivered(answer));
      return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
    }),
  );

  server.setRequestHandler(
    'tasks/cancel',
    { params: TaskParams, result: AnyResult },
    options.guard('tasks/cancel', async (request) => {
      const { answer } = await load(request.taskId);
      const status = taskStatusOf(answer.state);
      if (TERMINAL.has(status))
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${status}`);
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `Onceport does not cancel executions: task ${answer.execution_id} is not cancelled and its execution (state ${answer.state}) carries on; a dispatched call cannot be unsent. Poll tasks/get for its outcome.`,
        { taskId: answer.execution_id, status, state: answer.state },
      );
    }),
  );
}

/** JSON-RPC code a still-working `tasks/result` is answered with (the v1 SDK's RequestTimeout). */
const REQUEST_TIMEOUT = -32001;
