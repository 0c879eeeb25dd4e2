import {
  type BoundViolation,
  type BoundedToolCall,
  type Checked,
  type InputBounds,
  MAX_BODY_DEPTH,
  checkJsonValue,
  checkToolCall,
  childPath,
} from '../input-bounds';

const FIELDS = ['tool', 'arguments', 'intent_scope', 'wait_ms', 'run', 'repeat'] as const;
const REST_PATHS = {
  tool: '$.tool',
  arguments: '$.arguments',
  intentScope: '$.intent_scope',
  waitMs: '$.wait_ms',
  run: '$.run',
  repeat: '$.repeat',
};

/**
 * The body of `POST /v1/executions` through the one tool-call validator (shared with MCP): every
 * violation named by its JSON path, nothing recorded for a refused body.
 */
export function parseExecutionRequest(body: unknown, bounds: InputBounds): Checked<BoundedToolCall> {
  const walked = checkJsonValue(body, '$', MAX_BODY_DEPTH);
  if (walked.length > 0) return { ok: false, violations: walked };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return {
      ok: false,
      violations: [{ path: '$', bound: 'object', message: 'the body must be a JSON object: {"tool": …, "arguments": {…}}' }],
    };
  }
  const b = body as Record<string, unknown>;
  const unknown: BoundViolation[] = Object.keys(b)
    .filter((key) => !(FIELDS as readonly string[]).includes(key))
    .slice(0, 10)
    .map((key) => ({ path: childPath('$', key), bound: 'known field', message: `unknown field; expected ${FIELDS.join(', ')}` }));
  const checked = checkToolCall(
    {
      tool: b['tool'],
      arguments: b['arguments'],
      intentScope: b['intent_scope'],
      waitMs: b['wait_ms'],
      run: b['run'],
      repeat: b['repeat'],
    },
    REST_PATHS,
    bounds,
  );
  if (unknown.length === 0) return checked;
  return { ok: false, violations: [...(checked.ok ? [] : checked.violations), ...unknown] };
}
