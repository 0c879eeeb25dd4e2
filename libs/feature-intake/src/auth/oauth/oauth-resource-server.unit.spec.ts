import type { OAuthSettings } from '@onceport/config';
import { type JWK, type JWTPayload, type KeyLike, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { OAuthFetchError } from '@onceport/service-kit';
import { JwtResourceServer } from './oauth-resource-server';

const SETTINGS: OAuthSettings = {
  issuer: 'https://auth.example.com',
  resource: 'https://onceport.example/mcp',
  jwksUri: 'https://auth.example.com/jwks',
  actorClaim: 'client_id',
  requiredScopes: ['onceport'],
  clockToleranceSeconds: 30,
  subjects: new Map([['deploy-bot', 'agent:deploy-bot']]),
  adminClaim: 'sub',
  adminAudience: 'https://onceport.example/mcp',
  adminSubjects: new Map(),
};

describe('JwtResourceServer: a verified token becomes an actor, or a refusal HTTP can say', () => {
  let privateKey: KeyLike;
  let jwk: JWK;
  const logged: unknown[][] = [];
  let keysDown = false;

  const server = (settings: OAuthSettings = SETTINGS) =>
    new JwtResourceServer(settings, (subject) => settings.subjects.get(subject) ?? null, ['create_deployment', 'get_build_status'], {
      fetchJson: (url) =>
        keysDown ? Promise.reject(new OAuthFetchError(`${url} answered HTTP 503, not 200`)) : Promise.resolve({ keys: [jwk] }),
      log: (...line) => logged.push(line),
    });

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256' };
  });

  const token = (claims: JWTPayload): Promise<string> =>
    new SignJWT({ iss: SETTINGS.issuer, aud: SETTINGS.resource, client_id: 'deploy-bot', scope: 'onceport', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);

  it('maps the actor claim to its actor; a token without tool scopes is not narrowed', async () => {
    expect(await server().authenticate(await token({}))).toEqual({ ok: true, actor: { id: 'agent:deploy-bot' } });
  });

  it('narrows the actor to the tools its onceport:tool: scopes name', async () => {
    const verdict = await server().authenticate(await token({ scope: 'onceport onceport:tool:get_build_status' }));
    expect(verdict).toEqual({ ok: true, actor: { id: 'agent:deploy-bot', tokenTools: new Set(['get_build_status']) } });
  });

  it('refuses a token without a required scope: 403 insufficient_scope naming what is required', async () => {
    expect(await server().authenticate(await token({ scope: 'onceport:tool:get_build_status' }))).toEqual({
      ok: false,
      status: 403,
      error: 'insufficient_scope',
      description: 'the token lacks the scope this server requires',
      scope: ['onceport'],
    });
  });

  it('refuses a valid token whose subject names no actor: 403, with no RFC 6750 code (the token itself is fine)', async () => {
    expect(await server().authenticate(await token({ client_id: 'stranger' }))).toMatchObject({
      ok: false,
      status: 403,
      error: null,
      description:
        'the token is valid, but its client_id "stranger" names no actor of this server (an operator lists it under oauth_subjects of an actor)',
    });
  });

  it('refuses an invalid token: 401 invalid_token', async () => {
    expect(await server().authenticate(await token({ aud: 'https://other.example' }))).toMatchObject({
      ok: false,
      status: 401,
      error: 'invalid_token',
    });
  });

  it('answers 503 while the keys are out of reach, and tells the operator why', async () => {
    keysDown = true;
    try {
      expect(await server().authenticate(await token({}))).toMatchObject({ ok: false, status: 503, error: null });
      expect(logged.at(-1)).toEqual([
        'warn',
        'OAuth access tokens cannot be verified: the signing keys are out of reach',
        { issuer: SETTINGS.issuer, detail: 'https://auth.example.com/jwks answered HTTP 503, not 200' },
      ]);
    } finally {
      keysDown = false;
    }
  });

  it('publishes where its metadata is, and the document', () => {
    const oauth = server();
    expect(oauth.metadataUrl).toBe('https://onceport.example/.well-known/oauth-protected-resource/mcp');
    expect(oauth.metadata().scopes_supported).toEqual(['onceport', 'onceport:tool:create_deployment', 'onceport:tool:get_build_status']);
  });
});
