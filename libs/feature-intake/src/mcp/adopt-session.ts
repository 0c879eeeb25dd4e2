import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** The SDK internals `adoptSession` writes; `adopt-session.unit.spec.ts` fails loudly when they move. */
export interface AdoptableTransportInternals {
  _webStandardTransport: { sessionId?: string; _initialized: boolean };
}

/**
 * The SDK keeps a session's state in the transport that initialized it. Ours lives in PostgreSQL:
 * a request for a known session gets a fresh transport marked as initialized for that session.
 *
 * @modelcontextprotocol/sdk 1.32.2 (pinned) has no public way to do this: the options take no
 * session id, and `sessionIdGenerator: undefined` (stateless) drops the `Mcp-Session-Id` checks and
 * headers altogether. So this writes two private fields of the web-standard transport the Node
 * transport wraps. Re-check on every SDK upgrade; the unit spec pins the exact shape.
 */
export function adoptSession(transport: StreamableHTTPServerTransport, sessionId: string): void {
  const inner = (transport as unknown as AdoptableTransportInternals)._webStandardTransport;
  if (typeof inner !== 'object' || inner === null || typeof inner._initialized !== 'boolean') {
    throw new Error('@modelcontextprotocol/sdk changed its transport internals: adoptSession (mcp/adopt-session.ts) needs updating');
  }
  inner.sessionId = sessionId;
  inner._initialized = true;
}
