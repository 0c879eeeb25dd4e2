import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * Why a parsed body is not JSON-RPC, or null when every message is well-formed. The SDK answers
 * such bodies with -32700; JSON-RPC says -32600 (Invalid Request) for valid JSON of the wrong shape.
 */
export function invalidJsonRpc(body: unknown): string | null {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return 'an empty batch';
  for (const [i, message] of messages.entries()) {
    const parsed = JSONRPCMessageSchema.safeParse(message);
    if (!parsed.success) {
      const where = Array.isArray(body) ? `message ${i}: ` : '';
      const issue = parsed.error.issues[0];
      return `${where}not a JSON-RPC 2.0 message${issue ? ` (${issue.path.join('.') || 'body'}: ${issue.message})` : ''}`;
    }
  }
  return null;
}

export function jsonRpcError(code: number, message: string, id: string | number | null = null, data?: unknown): object {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}
