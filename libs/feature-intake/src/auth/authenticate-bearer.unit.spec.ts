import type { IncomingMessage } from 'node:http';
import type { ActorAuthenticator } from '../intake-dependencies';
import { authenticateBearer, otherUnauthorizedHeaders, refusalHeaders, toolScopeRefusal } from './authenticate-bearer';
import type { OAuthResourceServer, TokenAuthentication } from './oauth/oauth-resource-server';

const KEYS: ActorAuthenticator = { authenticate: (token) => (token === 'op_key-a' ? { id: 'agent:a' } : null) };
const METADATA = 'https://onceport.example/.well-known/oauth-protected-resource/mcp';
/** Any three base64url parts: shaped like a JWT, so it reaches the resource server. */
const JWT_SHAPED = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';

function oauthAnswering(verdict: TokenAuthentication) {
  const seen: string[] = [];
  const oauth: OAuthResourceServer = {
    resource: 'https://onceport.example/mcp',
    metadataUrl: METADATA,
    metadataPaths: [],
    metadata: () => {
      throw new Error('not used here');
    },
    authenticate: (token) => {
      seen.push(token);
      return Promise.resolve(verdict);
    },
  };
  return { oauth, seen };
}

const request = (authorization?: string): IncomingMessage =>
  ({ headers: authorization === undefined ? {} : { authorization } }) as IncomingMessage;

describe('authenticateBearer: API keys first, then OAuth access tokens', () => {
  it('without an oauth: section, answers exactly as API-key-only intake always did', async () => {
    for (const header of [undefined, 'Bearer op_wrong', `Bearer ${JWT_SHAPED}`, 'Basic dXNlcjpwYXNz']) {
      expect(await authenticateBearer({ actors: KEYS }, request(header))).toEqual({
        ok: false,
        status: 401,
        challenge: 'Bearer realm="onceport"',
        code: 'unauthorized',
        title: 'Unauthorized',
        message: 'send Authorization: Bearer <your Onceport API key>',
      });
    }
    expect(await authenticateBearer({ actors: KEYS }, request('Bearer op_key-a'))).toEqual({ ok: true, actor: { id: 'agent:a' } });
  });

  it('takes an API key without asking the authorization server', async () => {
    const { oauth, seen } = oauthAnswering({ ok: true, actor: { id: 'agent:other' } });
    expect(await authenticateBearer({ actors: KEYS, oauth }, request('Bearer op_key-a'))).toEqual({ ok: true, actor: { id: 'agent:a' } });
    expect(seen).toEqual([]);
  });

  it('hands a JWT-shaped token to the resource server and passes its actor on', async () => {
    const actor = { id: 'agent:b', tokenTools: new Set(['get_build_status']) };
    const { oauth, seen } = oauthAnswering({ ok: true, actor });
    expect(await authenticateBearer({ actors: KEYS, oauth }, request(`Bearer ${JWT_SHAPED}`))).toEqual({ ok: true, actor });
    expect(seen).toEqual([JWT_SHAPED]);
  });

  it('without credentials: 401 pointing at the metadata, with no error code (RFC 6750 §3.1)', async () => {
    const { oauth } = oauthAnswering({ ok: true, actor: { id: 'x' } });
    const auth = await authenticateBearer({ actors: KEYS, oauth }, request());
    expect(auth).toMatchObject({
      ok: false,
      status: 401,
      code: 'unauthorized',
      challenge: `Bearer realm="onceport", resource_metadata="${METADATA}"`,
    });
  });

  it('an unknown non-JWT token: 401 invalid_token, the token never echoed', async () => {
    const { oauth, seen } = oauthAnswering({ ok: true, actor: { id: 'x' } });
    const auth = await authenticateBearer({ actors: KEYS, oauth }, request('Bearer op_leaked-looking-secret'));
    expect(auth).toMatchObject({ ok: false, status: 401, code: 'invalid-token' });
    expect(JSON.stringify(auth)).not.toContain('op_leaked-looking-secret');
    expect(seen).toEqual([]);
  });

  it("turns the resource server's refusals into challenges: 401 invalid_token, 403 insufficient_scope, 403 no actor, 503", async () => {
    const refuse = async (verdict: TokenAuthentication) =>
      authenticateBearer({ actors: KEYS, oauth: oauthAnswering(verdict).oauth }, request(`Bearer ${JWT_SHAPED}`));
    expect(await refuse({ ok: false, status: 401, error: 'invalid_token', description: 'the token has expired' })).toMatchObject({
      status: 401,
      code: 'invalid-token',
      challenge: `Bearer realm="onceport", resource_metadata="${METADATA}", error="invalid_token", error_description="the token has expired"`,
    });
    const scoped = await refuse({ ok: false, status: 403, error: 'insufficient_scope', description: 'lacks', scope: ['onceport'] });
    expect(scoped).toMatchObject({ status: 403, code: 'insufficient-scope' });
    expect(scoped.ok === false && scoped.challenge).toContain('error="insufficient_scope", error_description="lacks", scope="onceport"');
    const stranger = await refuse({ ok: false, status: 403, error: null, description: 'names no actor' });
    expect(stranger).toMatchObject({
      status: 403,
      code: 'unknown-oauth-subject',
      challenge: `Bearer realm="onceport", resource_metadata="${METADATA}", error_description="names no actor"`,
    });
    const down = await refuse({ ok: false, status: 503, error: null, description: 'keys out of reach' });
    expect(down).toMatchObject({ status: 503, challenge: null, code: 'token-verification-unavailable' });
    expect(down.ok === false && refusalHeaders(down)).toEqual({ 'Retry-After': '30' });
  });

  it('builds the 403 for tools outside a narrowed token, and the challenge of every other 401', () => {
    const { oauth } = oauthAnswering({ ok: true, actor: { id: 'x' } });
    const refusal = toolScopeRefusal({ actors: KEYS, oauth }, ['charge_payment']);
    expect(refusal).toMatchObject({ status: 403, code: 'insufficient-scope' });
    expect(refusalHeaders(refusal)['WWW-Authenticate']).toContain('error="insufficient_scope"');
    expect(refusalHeaders(refusal)['WWW-Authenticate']).toContain('scope="onceport:tool:charge_payment"');
    expect(otherUnauthorizedHeaders({ actors: KEYS, oauth })).toEqual({
      'WWW-Authenticate': `Bearer realm="onceport", resource_metadata="${METADATA}"`,
    });
    expect(otherUnauthorizedHeaders({ actors: KEYS })).toEqual({});
  });
});
