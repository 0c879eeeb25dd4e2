import { type BoundViolation, type Checked } from './bound-violation';
import { checkJsonValue, stringProblem } from './check-json-value';
import { type DeliberateRepeat, type NamedRun, checkDeliberateRepeat, checkNamedRun } from './check-run-fields';
import { type InputBounds, MAX_ARGUMENT_DEPTH, MAX_INTENT_SCOPE_CHARS, MAX_TOOL_NAME_CHARS } from './input-bounds';

/** A tool call's fields as a transport found them (anything JSON can hold), and where it found each. */
export interface ToolCallInput {
  readonly tool: unknown;
  readonly arguments: unknown;
  readonly intentScope: unknown;
  readonly waitMs: unknown;
  readonly run?: unknown;
  readonly repeat?: unknown;
}

export interface ToolCallPaths {
  readonly tool: string;
  readonly arguments: string;
  readonly intentScope: string;
  readonly waitMs: string;
  readonly run: string;
  readonly repeat: string;
}

/** A tool call inside every bound: what intake may fingerprint, store and index. */
export interface BoundedToolCall {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly intentScope: string | null;
  /** Already limited to `maxWaitMs`; `defaultWaitMs` when none was sent. */
  readonly waitMs: number;
  /** The run the call belongs to (DESIGN.md §7); its intent scope then derives from the run's trigger. */
  readonly run: NamedRun | null;
  /** The agent means a second effect of an intent that would match, and says why. */
  readonly repeat: DeliberateRepeat | null;
}

/**
 * The one validator of a tool call, for MCP `tools/call` and REST `POST /v1/executions` alike. A
 * refused call names every violated bound by path; nothing of it has been recorded yet.
 *
 * @example checkToolCall({ tool: 'create_deployment', arguments: {}, intentScope: null, waitMs: undefined }, REST_PATHS, bounds)
 */
export function checkToolCall(input: ToolCallInput, paths: ToolCallPaths, bounds: InputBounds): Checked<BoundedToolCall> {
  const violations: BoundViolation[] = [];
  const tool = checkToolName(input.tool, paths.tool, violations);
  const args = checkArguments(input.arguments, paths.arguments, bounds, violations);
  const intentScope = checkIntentScope(input.intentScope, paths.intentScope, violations);
  const waitMs = checkWaitMs(input.waitMs, paths.waitMs, bounds, violations);
  const run = checkNamedRun(input.run, paths.run, violations);
  const repeat = checkDeliberateRepeat(input.repeat, paths.repeat, violations);
  if (run && intentScope !== null) {
    violations.push({
      path: paths.intentScope,
      bound: 'not with a run',
      message: "a run's calls take their intent scope from the run's trigger: send the run or an intent scope, not both",
    });
  }
  if (violations.length > 0) return { ok: false, violations };
  return { ok: true, value: { tool, arguments: args, intentScope, waitMs, run, repeat } };
}

function checkToolName(value: unknown, path: string, violations: BoundViolation[]): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TOOL_NAME_CHARS) {
    violations.push({
      path,
      bound: `string of 1-${MAX_TOOL_NAME_CHARS} characters`,
      message: `required: the name of a tool (1–${MAX_TOOL_NAME_CHARS} characters; tools/list shows them)`,
    });
    return '';
  }
  const problem = stringProblem(value);
  if (problem) violations.push({ path, bound: 'string-content', message: problem });
  return value;
}

function checkArguments(value: unknown, path: string, bounds: InputBounds, violations: BoundViolation[]): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    violations.push({
      path,
      bound: 'object',
      message: `must be a JSON object (got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value})`,
    });
    return {};
  }
  // Depth first: serializing (below) recurses, so it only runs on a value known to be shallow.
  const walked = checkJsonValue(value, path, MAX_ARGUMENT_DEPTH, `depth <= ${MAX_ARGUMENT_DEPTH}`);
  violations.push(...walked);
  if (walked.length === 0) {
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
    if (bytes > bounds.maxArgumentBytes) {
      violations.push({
        path,
        bound: `bytes <= ${bounds.maxArgumentBytes}`,
        message: `${bytes} bytes of JSON; the gateway accepts at most ${bounds.maxArgumentBytes} (ONCEPORT_MAX_ARGUMENT_BYTES)`,
      });
    }
  }
  return value as Record<string, unknown>;
}

function checkIntentScope(value: unknown, path: string, violations: BoundViolation[]): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_INTENT_SCOPE_CHARS) {
    const got = typeof value === 'string' ? `${value.length} characters` : typeof value;
    violations.push({
      path,
      bound: `string of 1-${MAX_INTENT_SCOPE_CHARS} characters`,
      message: `must be a string of 1–${MAX_INTENT_SCOPE_CHARS} characters (got ${got})`,
    });
    return null;
  }
  const problem = stringProblem(value);
  if (problem) violations.push({ path, bound: 'string-content', message: problem });
  return value;
}

function checkWaitMs(value: unknown, path: string, bounds: InputBounds, violations: BoundViolation[]): number {
  if (value === undefined || value === null) return Math.min(bounds.defaultWaitMs, bounds.maxWaitMs);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    violations.push({
      path,
      bound: 'integer >= 0',
      message: `must be a non-negative integer of milliseconds (at most ${bounds.maxWaitMs} is used)`,
    });
    return 0;
  }
  return Math.min(value, bounds.maxWaitMs);
}
