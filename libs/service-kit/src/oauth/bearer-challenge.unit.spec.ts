import { bearerChallenge } from './bearer-challenge';

describe('bearerChallenge (RFC 6750 §3, RFC 9728 §5.1)', () => {
  it('is the bare realm without OAuth: what API-key-only intake always sent', () => {
    expect(bearerChallenge()).toBe('Bearer realm="onceport"');
  });

  it('names the metadata, then the error, its description and the scopes needed', () => {
    expect(
      bearerChallenge({
        resourceMetadata: 'https://onceport.example/.well-known/oauth-protected-resource/mcp',
        error: 'insufficient_scope',
        description: 'the token lacks a scope',
        scope: ['onceport', 'onceport:tool:x'],
      }),
    ).toBe(
      'Bearer realm="onceport", resource_metadata="https://onceport.example/.well-known/oauth-protected-resource/mcp", error="insufficient_scope", error_description="the token lacks a scope", scope="onceport onceport:tool:x"',
    );
  });

  it('keeps quotes, backslashes and line breaks out of quoted strings, so no value can end one or split the header', () => {
    const header = bearerChallenge({ error: 'invalid_token', description: 'its client_id "a\\b"\r\nSet-Cookie: x=1' });
    expect(header).toBe('Bearer realm="onceport", error="invalid_token", error_description="its client_id abSet-Cookie: x=1"');
  });
});
