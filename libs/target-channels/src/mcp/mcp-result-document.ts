import { createHash } from 'node:crypto';
import type { Redactor } from '../http/redactor';
import { MCP_RESULT_CONTENT_TYPE } from '@onceport/contracts';
import type { McpObserved } from './mcp-outcome';

/**
 * The stored form of an upstream's `CallToolResult`: its content blocks (text, images, resource
 * links…), structured content and `isError`, as sent, credential redacted. Above the contract's cap
 * the blocks are replaced by one text block saying so — a stored result is always a valid document.
 */
export function mcpResultDocument(result: Record<string, unknown>, maxBytes: number, redactor: Redactor): McpObserved {
  const isError = result['isError'] === true;
  const document = {
    content: Array.isArray(result['content']) ? result['content'] : [],
    ...(result['structuredContent'] !== undefined ? { structuredContent: result['structuredContent'] } : {}),
    isError,
  };
  let body = redactor.redactBuffer(Buffer.from(JSON.stringify(document), 'utf8')).bytes;
  let truncated = false;
  if (body.length > maxBytes) {
    truncated = true;
    const notice = `The upstream's result was ${body.length} bytes, over this tool's cap of ${maxBytes} bytes; it was not kept.`;
    body = Buffer.from(JSON.stringify({ content: [{ type: 'text', text: notice }], isError }), 'utf8');
  }
  return {
    kind: 'observed',
    isError,
    body,
    truncated,
    contentType: MCP_RESULT_CONTENT_TYPE,
    digest: `sha256:${createHash('sha256').update(body).digest('hex')}`,
  };
}
