import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type AdoptableTransportInternals, adoptSession } from './adopt-session';

/**
 * `adoptSession` writes private fields of @modelcontextprotocol/sdk's transport (no public way in
 * 1.32.2). This pins their shape: an SDK upgrade that moves them fails here, by name, instead of every
 * request on an existing session failing with "Server not initialized" in production.
 */
describe('adoptSession: the SDK transport internals it relies on', () => {
  const internalsOf = (transport: StreamableHTTPServerTransport) =>
    (transport as unknown as AdoptableTransportInternals)._webStandardTransport;

  it('a fresh stateful transport has the private fields, uninitialized and without a session', () => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => 'generated' });
    const inner = internalsOf(transport);
    expect(inner).toBeDefined();
    expect(inner._initialized).toBe(false);
    expect(inner.sessionId).toBeUndefined();
    expect(transport.sessionId).toBeUndefined();
  });

  it('marks the transport initialized for the session, as the public getter sees it', () => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => 'generated' });
    adoptSession(transport, 'sess-from-postgres');
    expect(internalsOf(transport)._initialized).toBe(true);
    expect(transport.sessionId).toBe('sess-from-postgres');
  });

  it('fails loudly, naming itself, when the internals are gone', () => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => 'generated' });
    (transport as unknown as Record<string, unknown>)['_webStandardTransport'] = {};
    expect(() => adoptSession(transport, 'x')).toThrow(/adoptSession \(mcp\/adopt-session\.ts\) needs updating/);
  });
});
