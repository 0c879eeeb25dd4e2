import { UpstreamTaskId } from '@onceport/contracts';

/** The Tasks extension of MCP 2026-07-28 (SEP-2663): a server lists it in `server/discover`, a client declares it per request. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** Where a 2026-07-28 request carries its client capabilities (the per-request `_meta` envelope). */
export const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

/**
 * How an upstream session speaks tasks: `extension` — the 2026-07-28 Tasks extension (a `tools/call`
 * answered `resultType: "task"`, the result inline in `tasks/get` once completed); `legacy` — the
 * 2025-11-25 experimental tasks (`params.task` on `tools/call`, answered `{ task }`, the result from
 * `tasks/result`); null — the upstream offers no tasks, so none is asked for.
 */
export type TaskDialect = 'extension' | 'legacy';

export type UpstreamTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
const STATUSES: readonly UpstreamTaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

/** An upstream's task as one answer reported it; every value bounded before anything keeps it. */
export interface UpstreamTask {
  readonly taskId: string;
  readonly status: UpstreamTaskStatus;
  readonly statusMessage: string | null;
  /** How long the upstream asks to wait between polls, clamped to [100 ms, 5 s]. */
  readonly pollIntervalMs: number;
  /** The tool's result when the extension inlined it (`completed`), as sent. */
  readonly result: Record<string, unknown> | null;
  /** The JSON-RPC error a `failed` extension task carries. */
  readonly error: { readonly code: number | null; readonly message: string } | null;
}

/** What a raw answer came to: a task, something that claims to be one but cannot be used, or no task. */
export type TaskReading =
  { readonly kind: 'task'; readonly task: UpstreamTask } | { readonly kind: 'invalid'; readonly why: string } | { readonly kind: 'none' };

const MIN_POLL_MS = 100;
const MAX_POLL_MS = 5_000;
const MAX_MESSAGE = 300;

/**
 * Reads a task out of a raw `tools/call` answer (`{ resultType: "task", … }` or `{ task: {…} }`) or a
 * `tasks/get` answer (the task's fields at the top). An id that is not a bounded printable string is
 * `invalid`: it could not be recorded or polled, so the caller treats the call as answered without one.
 */
export function readTask(raw: unknown, from: 'call' | 'get'): TaskReading {
  if (!isObject(raw)) return { kind: 'none' };
  let fields: Record<string, unknown>;
  if (from === 'get') fields = raw;
  else if (raw['resultType'] === 'task') fields = raw;
  // 2025-11-25: CreateTaskResult `{ task }` (some servers add content saying how to follow it).
  else if (isObject(raw['task'])) fields = raw['task'];
  else return { kind: 'none' };
  const id = UpstreamTaskId.safeParse(fields['taskId']);
  if (!id.success) return { kind: 'invalid', why: `the upstream's task id is not usable (${brief(fields['taskId'])})` };
  const status = fields['status'];
  if (typeof status !== 'string' || !STATUSES.includes(status as UpstreamTaskStatus))
    return { kind: 'invalid', why: `task ${id.data} has an unknown status ${brief(status)}` };
  return {
    kind: 'task',
    task: {
      taskId: id.data,
      status: status as UpstreamTaskStatus,
      statusMessage: typeof fields['statusMessage'] === 'string' ? fields['statusMessage'].slice(0, MAX_MESSAGE) : null,
      pollIntervalMs: clampPoll(fields['pollIntervalMs'] ?? fields['pollInterval']),
      result: isObject(fields['result']) ? fields['result'] : null,
      error: errorOf(fields['error']),
    },
  };
}

/** The `_meta` and params that ask for a task in the session's dialect (added to a `tools/call`). */
export function taskRequest(dialect: TaskDialect, ttlMs: number): { meta: Record<string, unknown>; params: Record<string, unknown> } {
  if (dialect === 'extension') return { meta: { [CLIENT_CAPABILITIES_META]: { extensions: { [TASKS_EXTENSION]: {} } } }, params: {} };
  return { meta: {}, params: { task: { ttl: ttlMs } } };
}

/** Which dialect a connected upstream offers for `tools/call`, from what it advertised. */
export function taskDialectOf(era: 'modern' | 'legacy' | undefined, capabilities: unknown): TaskDialect | null {
  if (!isObject(capabilities)) return null;
  if (era === 'modern') {
    const extensions = capabilities['extensions'];
    return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]) ? 'extension' : null;
  }
  const tasks = capabilities['tasks'];
  const requests = isObject(tasks) ? tasks['requests'] : undefined;
  const tools = isObject(requests) ? requests['tools'] : undefined;
  return isObject(tools) && isObject(tools['call']) ? 'legacy' : null;
}

export function isTerminal(status: UpstreamTaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

function clampPoll(value: unknown): number {
  const ms = typeof value === 'number' && Number.isFinite(value) ? value : 500;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, Math.round(ms)));
}

function errorOf(value: unknown): UpstreamTask['error'] {
  if (!isObject(value)) return null;
  const message = typeof value['message'] === 'string' ? value['message'].slice(0, MAX_MESSAGE) : 'no message';
  return { code: typeof value['code'] === 'number' && Number.isInteger(value['code']) ? value['code'] : null, message };
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
