import { type CallToolResult, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { takeBehavior } from './state/behaviors';
import { readCatalog } from './state/catalog';
import { appendEffect, readEffects } from './state/effect-ledger';
import { createTask, readTask, viewOf } from './state/tasks';
import { toolsPage } from './upstream-tools';

/** The Tasks extension of MCP 2026-07-28, as a client declares it in its per-request capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';
/** Where Onceport sends the execution id. */
export const EXECUTION_ID_META_KEY = 'onceport/execution_id';
/** The idempotency key this upstream documents: a repeated key replays the first effect, applies nothing. */
export const IDEMPOTENCY_META_KEY = 'test-upstream/idempotency_key';

/** How a transport loses an answer: what "the connection died" means for it. */
export interface TransportFaults {
  /** The effect was applied: the answer must never arrive (stdio: exit; HTTP: destroy the socket). */
  cutAfterApply(): void;
  /** Nothing applied yet: die now (stdio: exit 137; HTTP: destroy the socket). */
  dieMidCall(): void;
}

export interface UpstreamServerOptions {
  readonly stateDir: string;
  /** How long after `maybe_task` its task reports completed; null: never. */
  readonly taskDelayMs: number | null;
  readonly faults: TransportFaults;
}

const Key = z.string().min(1).max(200);
const ARGUMENTS = {
  record_effect: z.object({ key: Key, note: z.string().max(2000).optional() }),
  read_status: z.object({ key: Key }),
  slow_effect: z.object({ key: Key, ms: z.int().min(0).max(600_000) }),
  maybe_task: z.object({ key: Key }),
} as const;
type ToolName = keyof typeof ARGUMENTS;

const TaskParams = z.object({ taskId: z.string().max(64) }).passthrough();
const AnyResult = z.object({}).passthrough();

/** A low-level MCP server (v2 SDK) over the state directory; one per HTTP request or stdio connection. */
export function createUpstreamServer(options: UpstreamServerOptions, era: 'legacy' | 'modern'): Server {
  const capabilities =
    era === 'modern' ? { tools: { listChanged: false }, extensions: { [TASKS_EXTENSION]: {} } } : { tools: { listChanged: false } };
  const server = new Server({ name: 'onceport-test-upstream', title: 'Onceport test upstream', version: '1.0.0' }, { capabilities });

  server.setRequestHandler('tools/list', async (request) => {
    try {
      return toolsPage(readCatalog(options.stateDir), request.params?.cursor) as never;
    } catch (error) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, (error as Error).message);
    }
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const name = request.params.name;
    if (!(name in ARGUMENTS)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const parsed = ARGUMENTS[name as ToolName].safeParse(request.params.arguments ?? {});
    if (!parsed.success)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for ${name}: ${z.prettifyError(parsed.error)}`);
    const args = parsed.data as { key: string; note?: string; ms?: number };
    const meta = callerMeta({ ...request.params._meta, ...ctx.mcpReq._meta });
    const call = new ToolCall(options, name as ToolName, args, meta, declaresTasks(ctx.mcpReq.envelope, request.params._meta));
    return (await call.run(ctx.mcpReq.signal)) as CallToolResult;
  });

  server.setRequestHandler('tasks/get', { params: TaskParams, result: AnyResult }, async ({ taskId }) => {
    const task = readTask(options.stateDir, taskId);
    if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${taskId}`);
    return { ...viewOf(task) };
  });
  return server;
}

/** One `tools/call`: the behaviour in force decides whether it applies, answers, errs or dies. */
class ToolCall {
  constructor(
    private readonly options: UpstreamServerOptions,
    private readonly tool: ToolName,
    private readonly args: { key: string; note?: string; ms?: number },
    private readonly meta: Record<string, unknown>,
    private readonly wantsTask: boolean,
  ) {}

  async run(signal: AbortSignal): Promise<Record<string, unknown>> {
    const behavior = takeBehavior(this.options.stateDir, { tool: this.tool, key: this.args.key });
    switch (behavior?.kind) {
      case 'die_mid_call':
        this.options.faults.dieMidCall();
        return new Promise(() => undefined);
      case 'error_before_apply':
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `error_before_apply: ${this.tool} refused, nothing applied`);
      case 'tool_error':
        return { content: [{ type: 'text', text: `tool_error: ${this.tool} failed, nothing applied` }], isError: true };
      default:
        break;
    }
    const result = this.apply();
    if (behavior?.kind === 'cut_after_apply') {
      this.options.faults.cutAfterApply();
      return new Promise(() => undefined);
    }
    const delay = (behavior?.kind === 'answer_after_ms' ? behavior.ms : 0) + (this.tool === 'slow_effect' ? (this.args.ms ?? 0) : 0);
    if (delay > 0) await sleep(delay, signal);
    return result;
  }

  /** The effect (nothing for `read_status`), durable in the ledger before anything is answered. */
  private apply(): Record<string, unknown> {
    const { stateDir } = this.options;
    const { key } = this.args;
    if (this.tool === 'read_status') {
      const count = readEffects(stateDir, { key }).length;
      return { content: [{ type: 'text', text: `${count} effect(s) for key ${key}` }], structuredContent: { key, count } };
    }
    const idempotencyKey = typeof this.meta[IDEMPOTENCY_META_KEY] === 'string' ? (this.meta[IDEMPOTENCY_META_KEY] as string) : null;
    const earlier =
      idempotencyKey === null ? undefined : readEffects(stateDir, { tool: this.tool }).find((e) => e.idempotencyKey === idempotencyKey);
    const effect =
      earlier ??
      appendEffect(stateDir, {
        tool: this.tool,
        key,
        note: this.args.note ?? null,
        executionId: typeof this.meta[EXECUTION_ID_META_KEY] === 'string' ? (this.meta[EXECUTION_ID_META_KEY] as string) : null,
        idempotencyKey,
        meta: this.meta,
      });
    const replayed = earlier !== undefined;
    const result = {
      content: [{ type: 'text', text: `${replayed ? 'replayed' : 'recorded'} effect ${effect.effect_id} for key ${key}` }],
      structuredContent: { effect_id: effect.effect_id, key, replayed },
    };
    if (this.tool !== 'maybe_task' || !this.wantsTask) return result;
    const task = createTask(stateDir, this.options.taskDelayMs, result);
    // The extension's CreateTaskResult: the task as `tasks/get` reports it, without the result yet.
    const { result: _notYet, ...view } = viewOf(task);
    return { resultType: 'task', ...view };
  }
}

/** Whether the per-request capabilities (the 2026-07-28 `_meta` envelope) declare the Tasks extension. */
function declaresTasks(envelope: unknown, rawMeta: unknown): boolean {
  const capabilities = field(envelope, CLIENT_CAPABILITIES_META) ?? field(rawMeta, CLIENT_CAPABILITIES_META);
  return isObject(field(field(capabilities, 'extensions'), TASKS_EXTENSION));
}

function callerMeta(meta: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(meta).filter(([name]) => !name.startsWith('io.modelcontextprotocol/')));
}

function field(value: unknown, name: string): unknown {
  return isObject(value) ? value[name] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
