import {
  type BoundViolation,
  type InputBounds,
  MAX_BODY_DEPTH,
  type ToolCallInput,
  type ToolCallPaths,
  checkJsonRpcId,
  checkJsonValue,
  checkToolCall,
  childPath,
  describeViolations,
} from '../input-bounds';
import { jsonRpcError } from './json-rpc-shape';

/** Intent scope and wait travel in `_meta` so tool schemas stay the contract's own. */
export const INTENT_SCOPE_META = 'onceport/intent_scope';
export const WAIT_META = 'onceport/wait_ms';
/** The run a call belongs to, `{ id, trigger?, attempt? }` (DESIGN.md §7). */
export const RUN_META = 'onceport/run';
/** A deliberate second effect of an intent that would match: `{ reason }`. */
export const REPEAT_META = 'onceport/repeat';

/** Where the fields of a `tools/call` are, for violations that name them. */
export function toolCallPaths(base: string): ToolCallPaths {
  const meta = `${base}._meta`;
  return {
    tool: `${base}.name`,
    arguments: `${base}.arguments`,
    intentScope: `${meta}[${JSON.stringify(INTENT_SCOPE_META)}]`,
    waitMs: `${meta}[${JSON.stringify(WAIT_META)}]`,
    run: `${meta}[${JSON.stringify(RUN_META)}]`,
    repeat: `${meta}[${JSON.stringify(REPEAT_META)}]`,
  };
}

/** The `tools/call` params as the one validator takes them. */
export function toolCallInput(params: Record<string, unknown>): ToolCallInput {
  const meta = isObject(params['_meta']) ? params['_meta'] : {};
  return {
    tool: params['name'],
    arguments: params['arguments'],
    intentScope: meta[INTENT_SCOPE_META],
    waitMs: meta[WAIT_META],
    run: meta[RUN_META],
    repeat: meta[REPEAT_META],
  };
}

export interface RefusedBody {
  readonly status: number;
  readonly body: object;
}

/**
 * Checks a parsed `/mcp` POST body against every bound before the SDK (whose zod schemas would
 * answer a malformed `tools/call` with -32603 and a raw dump) or anything else touches it: depth and
 * string contents of the whole body, each JSON-RPC id, params that are objects, and each
 * `tools/call` through the one tool-call validator. A refusal is -32602 naming path and bound in
 * `data.violations`; answered with HTTP 200 when it can carry the request's id (so MCP clients
 * surface it as the call's error), else 400.
 */
export function refusedMcpBody(body: unknown, bounds: InputBounds): RefusedBody | null {
  const violations = mcpBodyViolations(body, bounds);
  if (violations.length === 0) return null;
  const id = !Array.isArray(body) && isObject(body) && checkJsonRpcId(body['id'], 'id') === null ? (body['id'] as string | number) : null;
  const error = jsonRpcError(-32602, `Invalid params: ${describeViolations(violations)}`, id, { violations });
  return { status: id === null ? 400 : 200, body: error };
}

function mcpBodyViolations(body: unknown, bounds: InputBounds): BoundViolation[] {
  const whole = checkJsonValue(body, '$', MAX_BODY_DEPTH);
  if (whole.length > 0) return whole;
  const messages = Array.isArray(body) ? body.map((m, i) => ({ message: m, path: `$[${i}]` })) : [{ message: body, path: '$' }];
  const violations: BoundViolation[] = [];
  for (const { message, path } of messages) {
    if (!isObject(message)) continue; // not JSON-RPC at all: invalidJsonRpc answers -32600
    if ('id' in message && message['id'] !== null) {
      const bad = checkJsonRpcId(message['id'], childPath(path, 'id'));
      if (bad) violations.push(bad);
    }
    if (!('params' in message)) continue;
    const params = message['params'];
    const paramsPath = childPath(path, 'params');
    if (!isObject(params)) {
      violations.push({ path: paramsPath, bound: 'object', message: 'MCP params must be a JSON object' });
      continue;
    }
    if ('_meta' in params && !isObject(params['_meta']))
      violations.push({ path: childPath(paramsPath, '_meta'), bound: 'object', message: '_meta must be a JSON object' });
    if (message['method'] === 'tools/call') {
      const checked = checkToolCall(toolCallInput(params), toolCallPaths(paramsPath), bounds);
      if (!checked.ok) violations.push(...checked.violations);
    }
  }
  return violations;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
