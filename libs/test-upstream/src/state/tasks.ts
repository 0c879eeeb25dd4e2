import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { STATE_FILES, readJsonFile, statePath, writeJsonAtomic } from './files';

/** How long after `maybe_task` its task reports completed, unless told otherwise (ms). */
export const DEFAULT_TASK_DELAY_MS = 300;

/** How often a client is asked to poll `tasks/get` (ms). */
export const TASK_POLL_INTERVAL_MS = 100;

/** A task `maybe_task` started; kept in the state directory so a restarted upstream still answers for it. */
export interface StoredTask {
  readonly taskId: string;
  readonly createdAt: string;
  /** When `tasks/get` starts reporting `completed` (epoch ms); null: never (stays `working`). */
  readonly completesAt: number | null;
  readonly ttlMs: number;
  /** The call's result, handed out once completed. */
  readonly result: Readonly<Record<string, unknown>>;
  /** Ended `failed` by `endTasks` (its error instead of the result). */
  readonly failed?: boolean;
}

/** The Tasks extension's `Task` as `tasks/get` (and the creating call) report it. */
export interface TaskView {
  readonly taskId: string;
  readonly status: 'working' | 'completed' | 'failed';
  readonly statusMessage: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  readonly result?: Readonly<Record<string, unknown>>;
  readonly error?: { readonly code: number; readonly message: string };
}

const TASK_ID = /^tsk_[0-9a-f]{24}$/;

export function createTask(stateDir: string, delayMs: number | null, result: Record<string, unknown>): StoredTask {
  const task: StoredTask = {
    taskId: `tsk_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    createdAt: new Date().toISOString(),
    completesAt: delayMs === null ? null : Date.now() + delayMs,
    ttlMs: 3_600_000,
    result,
  };
  writeJsonAtomic(statePath(stateDir, STATE_FILES.tasks, `${task.taskId}.json`), task);
  return task;
}

/**
 * Ends every task still working, now: `completed` with its result, or `failed` (the effect stays in the
 * ledger: a tool that acted and then failed). How a test finishes a task started with a delay of "never".
 * Returns the ids it ended.
 */
export function endTasks(stateDir: string, how: 'completed' | 'failed' = 'completed'): string[] {
  const ended: string[] = [];
  let names: string[];
  try {
    names = readdirSync(statePath(stateDir, STATE_FILES.tasks));
  } catch {
    return ended; // no task was ever started
  }
  for (const name of names.filter((file) => file.endsWith('.json'))) {
    const task = readTask(stateDir, name.slice(0, -'.json'.length));
    if (!task || viewOf(task).status !== 'working') continue;
    writeJsonAtomic(statePath(stateDir, STATE_FILES.tasks, name), { ...task, completesAt: Date.now(), failed: how === 'failed' });
    ended.push(task.taskId);
  }
  return ended;
}

/** The task, or null for an id this upstream never issued (an id that is not one is never used as a path). */
export function readTask(stateDir: string, taskId: string): StoredTask | null {
  if (!TASK_ID.test(taskId)) return null;
  return (readJsonFile(statePath(stateDir, STATE_FILES.tasks, `${taskId}.json`)) as StoredTask | undefined) ?? null;
}

export function viewOf(task: StoredTask, now = Date.now()): TaskView {
  const done = task.completesAt !== null && now >= task.completesAt;
  const common = { taskId: task.taskId, createdAt: task.createdAt, ttlMs: task.ttlMs, pollIntervalMs: TASK_POLL_INTERVAL_MS };
  if (!done)
    return {
      ...common,
      status: 'working',
      statusMessage: 'the effect was applied; the task completes later',
      lastUpdatedAt: task.createdAt,
    };
  const completedAt = new Date(task.completesAt as number).toISOString();
  if (task.failed)
    return {
      ...common,
      status: 'failed',
      statusMessage: 'failed after applying the effect',
      lastUpdatedAt: completedAt,
      error: { code: -32603, message: 'the tool failed after applying its effect' },
    };
  return { ...common, status: 'completed', statusMessage: 'completed', lastUpdatedAt: completedAt, result: task.result };
}
