/** The body of `POST /v1/executions`, checked field by field so the error names the field. */
export interface ExecutionRequestBody {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly intent_scope: string | null;
  readonly wait_ms: number | null;
}

export function parseExecutionRequest(body: unknown): ExecutionRequestBody | { error: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: 'the body must be a JSON object: {"tool": …, "arguments": {…}}' };
  const b = body as Record<string, unknown>;
  if (typeof b['tool'] !== 'string' || b['tool'] === '') return { error: 'tool: required, the name of a tool (GET /mcp tools/list shows them)' };
  const args = b['arguments'] ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { error: 'arguments: must be a JSON object' };
  const scope = b['intent_scope'] ?? null;
  if (scope !== null && (typeof scope !== 'string' || scope.length === 0 || scope.length > 200)) return { error: 'intent_scope: must be a string of 1–200 characters' };
  const wait = b['wait_ms'] ?? null;
  if (wait !== null && (typeof wait !== 'number' || !Number.isInteger(wait) || wait < 0)) return { error: 'wait_ms: must be a non-negative integer' };
  const unknown = Object.keys(b).filter((k) => !['tool', 'arguments', 'intent_scope', 'wait_ms'].includes(k));
  if (unknown.length > 0) return { error: `unknown field(s): ${unknown.join(', ')}; expected tool, arguments, intent_scope, wait_ms` };
  return { tool: b['tool'], arguments: args as Record<string, unknown>, intent_scope: scope as string | null, wait_ms: wait as number | null };
}
