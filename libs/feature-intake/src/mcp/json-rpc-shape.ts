import { parseJSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * Why a parsed body is not JSON-RPC, or null when every message is well-formed. The SDK answers
 * such bodies with -32700; JSON-RPC says -32600 (Invalid Request) for valid JSON of the wrong shape.
 */
export function invalidJsonRpc(body: unknown): string | null {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return 'an empty batch';
  for (const [i, message] of messages.entries()) {
    try {
      parseJSONRPCMessage(message);
    } catch (error) {
      const where = Array.isArray(body) ? `message ${i}: ` : '';
      return `${where}not a JSON-RPC 2.0 message${describeIssue(error)}`;
    }
  }
  return null;
}

/** The first schema issue of a refused message, briefly (never the whole dump). */
function describeIssue(error: unknown): string {
  const issues = (error as { issues?: { path?: PropertyKey[]; message?: string }[] } | null)?.issues;
  const issue = Array.isArray(issues) ? issues[0] : undefined;
  if (!issue) return '';
  return ` (${(issue.path ?? []).map(String).join('.') || 'body'}: ${String(issue.message).slice(0, 200)})`;
}

export function jsonRpcError(code: number, message: string, id: string | number | null = null, data?: unknown): object {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}
