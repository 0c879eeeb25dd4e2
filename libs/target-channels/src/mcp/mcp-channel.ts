import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { JsonValue } from '@onceport/contracts';
import type { McpToolContract, McpUpstream } from '@onceport/domain';
import { type Redactor, redactorFor } from '../http/redactor';
import type { McpOutcome, McpTaskProbe } from './mcp-outcome';
import { mcpResultDocument } from './mcp-result-document';
import { type TaskContext, finishedDocument, followTask, getTask, isTaskNotFound } from './mcp-task-follow';
import { readTask, taskRequest } from './mcp-task-wire';
import { McpUpstreamConnections, type UpstreamSession } from './mcp-upstream-connections';
import { type UpstreamDrift, type UpstreamTool, upstreamDrift } from './upstream-drift';

/** An upstream listing more pages of tools than this is read no further (bounded start). */
const MAX_TOOL_PAGES = 50;
/** The longest a 2025-11-25 upstream is asked to keep a task (its `ttl`): the correlation window, at most a week. */
const MAX_TASK_TTL_MS = 7 * 24 * 3_600_000;

/** The `_meta` key that carries the execution id to every upstream (documented in the README). */
export const EXECUTION_ID_META = 'onceport/execution_id';

/**
 * JSON-RPC errors by which an upstream refuses a call before applying anything: malformed request,
 * unknown method or tool, invalid params, a missing capability or protocol version. Any other error
 * may come from inside a tool that already acted, so it is an unknown outcome.
 */
const REFUSED_BEFORE_APPLYING = new Set([-32700, -32600, -32601, -32602, -32002, -32021, -32022]);

export interface McpSendInput {
  readonly contract: McpToolContract;
  readonly executionId: string;
  /** Already validated against the contract's schema by the caller. */
  readonly arguments: Readonly<Record<string, JsonValue>>;
  /** The upstream's credential, resolved from its `credential_ref`; null when it names none. */
  readonly credential: string | null;
  /** The dispatch span's trace context (`traceparent`, `tracestate`): sent in `_meta`, as MCP 2026-07-28 names it. */
  readonly traceHeaders?: Readonly<Record<string, string>>;
}

/**
 * The MCP channel of the dispatcher (DESIGN.md §9): tools of third-party MCP servers, called with
 * the execution id in `_meta`, each call reported as observed (a result, tool errors included),
 * failed before send, or unknown — never guessed from a broken stream.
 *
 * @example const outcome = await new McpChannel().send({ contract, executionId, arguments: args, credential: null });
 */
export class McpChannel {
  private closed = false;

  constructor(private readonly connections = new McpUpstreamConnections()) {}

  async send(input: McpSendInput): Promise<McpOutcome> {
    if (this.closed) return { kind: 'failed_before_send', code: 'channel_closed', reason: 'the channel is closed', retryable: true };
    const { target } = input.contract;
    const redactor = redactorFor(input.credential);
    let session: UpstreamSession;
    try {
      session = await this.connections.session(target.upstream, input.credential);
    } catch (error) {
      // No call was handed over: the handshake (or the spawn) failed.
      return {
        kind: 'failed_before_send',
        code: isConnectRefused(error) ? 'connect_refused' : 'connect_failed',
        reason: redactor.redact(`upstream "${target.upstream.name}" could not be reached: ${describe(error)}`),
        retryable: true,
      };
    }
    // A contract with the mcp_task probe asks for a task where the upstream offers tasks.
    const dialect = input.contract.probe?.kind === 'mcp_task' ? session.tasks : null;
    const deadlineMs = Date.now() + target.timeoutMs;
    const watch = dialect ? session.tap.watch(input.executionId) : null;
    try {
      const ask = dialect ? taskRequest(dialect, Math.min(input.contract.correlationWindowMs, MAX_TASK_TTL_MS)) : null;
      const result = await session.client.callTool(
        { name: target.tool, arguments: { ...input.arguments }, _meta: { ...metaFor(input), ...ask?.meta }, ...ask?.params },
        { timeout: target.timeoutMs },
      );
      const answered = dialect
        ? await this.taskAnswer(watch?.captured(), { session, dialect, maxResultBytes: target.maxResultBytes, redactor }, deadlineMs)
        : null;
      return answered ?? mcpResultDocument(result as Record<string, unknown>, target.maxResultBytes, redactor);
    } catch (error) {
      // The client cannot decode a task answer and throws: the tap kept what the upstream sent.
      const answered = dialect
        ? await this.taskAnswer(watch?.captured(), { session, dialect, maxResultBytes: target.maxResultBytes, redactor }, deadlineMs)
        : null;
      if (answered) return answered;
      const outcome = classifyCallError(error, session, redactor, target.timeoutMs);
      // A broken session is replaced at the next call. One that only timed out or answered an error
      // is kept: other calls may be in flight on it (closing a stdio session stops its server).
      if (session.closed || (outcome.kind === 'unknown' && (outcome.code === 'connection_lost' || outcome.code === 'process_exited')))
        await this.connections.discard(session);
      return outcome;
    } finally {
      watch?.dispose();
    }
  }

  /**
   * Reads a task of an upstream for the reconciler: its status and, once it ended with an outcome,
   * the result document. Over the same sessions as the sends (a stdio server is started if needed).
   */
  async probeTask(input: { contract: McpToolContract; taskId: string; credential: string | null }): Promise<McpTaskProbe> {
    const { target } = input.contract;
    const redactor = redactorFor(input.credential);
    const unreachable = (error: unknown): McpTaskProbe => ({ kind: 'unreachable', reason: redactor.redact(describe(error)) });
    if (this.closed) return { kind: 'unreachable', reason: 'the channel is closed' };
    let session: UpstreamSession;
    try {
      session = await this.connections.session(target.upstream, input.credential);
    } catch (error) {
      return unreachable(error);
    }
    // A session that offers no tasks still gets asked: the task came from an earlier session of the same upstream.
    const context: TaskContext = { session, dialect: session.tasks ?? 'extension', maxResultBytes: target.maxResultBytes, redactor };
    try {
      const reading = await getTask(session, input.taskId, target.timeoutMs);
      if (reading.kind !== 'task')
        return { kind: 'unreachable', reason: reading.kind === 'invalid' ? reading.why : 'tasks/get answered without a task' };
      const { task } = reading;
      const document = await finishedDocument(context, task, target.timeoutMs);
      return { kind: 'task', status: task.status, statusMessage: task.statusMessage, document };
    } catch (error) {
      if (isTaskNotFound(error))
        return { kind: 'not_found', reason: redactor.redact(`the upstream does not know task ${input.taskId}: ${describe(error)}`) };
      if (session.closed) await this.connections.discard(session);
      return unreachable(error);
    }
  }

  /** The outcome of a call the upstream answered with a task (followed until the deadline); null when it sent no task. */
  private async taskAnswer(raw: unknown, context: TaskContext, deadlineMs: number): Promise<McpOutcome | null> {
    const reading = readTask(raw, 'call');
    if (reading.kind === 'none') return null;
    if (reading.kind === 'invalid')
      return {
        kind: 'unknown',
        code: 'upstream_error',
        reason: `the upstream answered with a task that cannot be followed: ${reading.why}`,
      };
    return followTask(context, reading.task, deadlineMs);
  }

  /**
   * Compares contracts with what their upstreams list now (one `tools/list`, all pages, per upstream):
   * each contract that drifted, by name, and each upstream that could not be asked. Starts stdio servers.
   */
  async checkUpstreams(
    contracts: readonly McpToolContract[],
    credentialOf: (ref: string) => string | null,
  ): Promise<{ drift: UpstreamDrift[]; unreachable: { upstream: string; reason: string }[] }> {
    const byUpstream = new Map<string, { upstream: McpUpstream; contracts: McpToolContract[] }>();
    for (const contract of contracts) {
      const { upstream } = contract.target;
      const entry = byUpstream.get(upstream.name) ?? { upstream, contracts: [] };
      entry.contracts.push(contract);
      byUpstream.set(upstream.name, entry);
    }
    const drift: UpstreamDrift[] = [];
    const unreachable: { upstream: string; reason: string }[] = [];
    for (const [name, { upstream, contracts: ofUpstream }] of byUpstream) {
      const credential = upstream.credentialRef ? credentialOf(upstream.credentialRef) : null;
      try {
        const session = await this.connections.session(upstream, credential);
        const offered: UpstreamTool[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
          const listed = await session.client.listTools(cursor ? { cursor } : undefined);
          offered.push(...(listed.tools as UpstreamTool[]));
          cursor = listed.nextCursor;
          if (!cursor) break;
        }
        drift.push(...upstreamDrift(ofUpstream, offered));
      } catch (error) {
        unreachable.push({ upstream: name, reason: redactorFor(credential).redact(describe(error)) });
      }
    }
    return { drift, unreachable };
  }

  /** Stops accepting sends and closes every upstream session (stdio servers are stopped). */
  async close(): Promise<void> {
    this.closed = true;
    await this.connections.close();
  }
}

function metaFor(input: McpSendInput): Record<string, string> {
  const meta: Record<string, string> = { [EXECUTION_ID_META]: input.executionId };
  const key = input.contract.target.idempotencyMetaKey;
  if (key) meta[key] = input.executionId;
  for (const name of ['traceparent', 'tracestate']) {
    const value = input.traceHeaders?.[name];
    if (value) meta[name] = value;
  }
  return meta;
}

function classifyCallError(error: unknown, session: UpstreamSession, redactor: Redactor, timeoutMs: number): McpOutcome {
  const reason = redactor.redact(describe(error));
  if (error instanceof ProtocolError) {
    if (REFUSED_BEFORE_APPLYING.has(error.code))
      return {
        kind: 'failed_before_send',
        code: 'refused_by_upstream',
        reason: `the upstream refused the call: ${reason}`,
        retryable: false,
      };
    return { kind: 'unknown', code: 'upstream_error', reason: `the upstream answered with an error after accepting the call: ${reason}` };
  }
  if (error instanceof SdkError) {
    switch (error.code) {
      case SdkErrorCode.NotConnected:
        // Refused by the client before anything was written.
        return { kind: 'failed_before_send', code: 'connect_failed', reason, retryable: true };
      case SdkErrorCode.ClientHttpAuthentication:
      case SdkErrorCode.ClientHttpForbidden:
        return {
          kind: 'failed_before_send',
          code: 'refused_by_upstream',
          reason: `the upstream refused the credential: ${reason}`,
          retryable: false,
        };
      case SdkErrorCode.RequestTimeout:
        return { kind: 'unknown', code: 'timeout', reason: `no result within ${timeoutMs} ms` };
      default:
        break;
    }
  }
  if (isConnectRefused(error)) return { kind: 'failed_before_send', code: 'connect_refused', reason, retryable: true };
  if (session.pid !== null && session.closed)
    return { kind: 'unknown', code: 'process_exited', reason: `the upstream process exited before it answered: ${reason}` };
  return { kind: 'unknown', code: 'connection_lost', reason: `the connection to the upstream ended before its answer: ${reason}` };
}

/** ECONNREFUSED anywhere in the cause chain: the TCP connection was never made, nothing was sent. */
function isConnectRefused(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && depth < 5; depth += 1) {
    if ((cause as NodeJS.ErrnoException).code === 'ECONNREFUSED') return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
