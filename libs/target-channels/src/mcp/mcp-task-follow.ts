import { setTimeout as sleep } from 'node:timers/promises';
import { ProtocolError } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { Redactor } from '../http/redactor';
import type { McpObserved, McpOutcome } from './mcp-outcome';
import { mcpResultDocument } from './mcp-result-document';
import { type TaskDialect, type TaskReading, type UpstreamTask, isTerminal, readTask } from './mcp-task-wire';
import type { UpstreamSession } from './mcp-upstream-connections';

/** `tasks/*` answers are read by `readTask`, not by a schema: this one only lets them through. */
const AnyResult = z.object({}).passthrough();

/** JSON-RPC "invalid params": how an upstream says it does not know a task id. */
const INVALID_PARAMS = -32602;

export interface TaskContext {
  readonly session: UpstreamSession;
  readonly dialect: TaskDialect;
  readonly maxResultBytes: number;
  readonly redactor: Redactor;
}

/** One `tasks/get`; throws what the client throws (no answer, a JSON-RPC error). */
export async function getTask(session: UpstreamSession, taskId: string, timeoutMs: number): Promise<TaskReading> {
  const raw = await session.client.request({ method: 'tasks/get', params: { taskId } }, AnyResult, { timeout: Math.max(1, timeoutMs) });
  return readTask(raw, 'get');
}

/** Whether an error is the upstream saying it does not know the task. */
export function isTaskNotFound(error: unknown): boolean {
  return error instanceof ProtocolError && error.code === INVALID_PARAMS;
}

/**
 * The stored document of a task that ended with an outcome: `completed` → its result (inline in the
 * extension's `tasks/get`, from `tasks/result` in 2025-11-25); `failed` → the result or the error,
 * always a tool error (`isError`): the tool ran and failed. Null for any other status.
 */
export async function finishedDocument(context: TaskContext, task: UpstreamTask, timeoutMs: number): Promise<McpObserved | null> {
  if (task.status !== 'completed' && task.status !== 'failed') return null;
  const failed = task.status === 'failed';
  let result = task.result;
  if (result === null && task.error === null && context.dialect === 'legacy') {
    try {
      result = await context.session.client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, AnyResult, {
        timeout: Math.max(1, timeoutMs),
      });
    } catch (error) {
      // A failed task's tasks/result may be the JSON-RPC error it failed with; for a completed one, no result is no answer.
      if (!failed || !(error instanceof ProtocolError)) throw error;
      result = errorDocument(task, `${error.code}: ${error.message}`);
    }
  }
  if (result === null) {
    if (!failed) throw new Error('it completed, but its answer carried no result');
    result = errorDocument(task, task.error ? `${task.error.code ?? '?'}: ${task.error.message}` : (task.statusMessage ?? 'no message'));
  }
  return mcpResultDocument(failed ? { ...result, isError: true } : result, context.maxResultBytes, context.redactor);
}

/**
 * Follows a task the upstream answered a `tools/call` with, until it ends or `deadlineMs` passes:
 * ended with an outcome → observed; still working at the deadline, cancelled by someone else, or no
 * answer while polling → unknown, carrying the task id for the reconciler to poll.
 */
export async function followTask(context: TaskContext, first: UpstreamTask, deadlineMs: number): Promise<McpOutcome> {
  let task = first;
  const unknown = (reason: string): McpOutcome => ({
    kind: 'unknown',
    code: 'task_unfinished',
    reason: context.redactor.redact(`task ${task.taskId}: ${reason}`),
    upstreamTaskId: task.taskId,
  });
  for (;;) {
    if (isTerminal(task.status)) {
      if (task.status === 'cancelled') return unknown(`cancelled upstream (${task.statusMessage ?? 'no message'}); it may have acted`);
      try {
        const document = await finishedDocument(context, task, deadlineMs - Date.now());
        if (document) return document;
      } catch (error) {
        return unknown(`ended ${task.status}, but its result could not be read: ${describe(error)}`);
      }
    }
    const wait = Math.min(task.pollIntervalMs, deadlineMs - Date.now());
    if (wait <= 0) return unknown(`still ${task.status} when the call's timeout ran out (${task.statusMessage ?? 'no message'})`);
    await sleep(wait);
    try {
      const reading = await getTask(context.session, task.taskId, deadlineMs - Date.now());
      if (reading.kind !== 'task') return unknown(`tasks/get gave no usable task (${reading.kind === 'invalid' ? reading.why : 'none'})`);
      task = reading.task;
    } catch (error) {
      return unknown(`no answer to tasks/get: ${describe(error)}`);
    }
  }
}

function errorDocument(task: UpstreamTask, text: string): Record<string, unknown> {
  return { content: [{ type: 'text', text: `The upstream's task ${task.taskId} ended ${task.status}: ${text}` }], isError: true };
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
