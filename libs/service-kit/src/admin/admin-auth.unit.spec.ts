import { ActorDirectory, hashApiKey, parseActorsFile } from '@onceport/config';
import { type JWK, type JWTPayload, type KeyLike, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { OAuthFetchError } from '../oauth/bounded-json-fetch';
import { AdminAuth, type AdminAuthentication } from './admin-auth';

const ISSUER = 'https://auth.example.com';
const ADMIN_AUDIENCE = 'https://onceport.example/admin';
const NOW = new Date('2026-12-01T12:00:00Z');
const epoch = (date: Date): number => Math.floor(date.getTime() / 1000);

const actorsFile = (oauth: boolean): string => `${
  oauth
    ? `oauth:\n  issuer: ${ISSUER}\n  resource: https://onceport.example/mcp\n  jwks_uri: ${ISSUER}/jwks\n  actor_claim: client_id\n  admin_audience: ${ADMIN_AUDIENCE}\n`
    : ''
}actors:
  - id: agent:bot
    api_keys_sha256: [${hashApiKey('agent-key')}]
    tools: "*"
admins:
  - id: ops:alice
    api_keys_sha256: [${hashApiKey('op_alice')}]
${oauth ? '    oauth_subjects: [alice]\n  - id: ops:bob\n    oauth_subjects: [bob]\n' : ''}`;

describe('AdminAuth: an admin key, or an operator’s access token naming an admin', () => {
  let privateKey: KeyLike;
  let jwk: JWK;
  let keysDown = false;
  const auth = (oauth = true): AdminAuth =>
    new AdminAuth(new ActorDirectory(parseActorsFile(actorsFile(oauth), 'actors.yaml')), {
      fetchJson: (url) =>
        keysDown ? Promise.reject(new OAuthFetchError(`${url} answered HTTP 503, not 200`)) : Promise.resolve({ keys: [jwk] }),
      now: () => NOW,
    });

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256' };
  });
  afterEach(() => (keysDown = false));

  const token = (claims: JWTPayload = {}): Promise<string> =>
    new SignJWT({
      iss: ISSUER,
      aud: ADMIN_AUDIENCE,
      sub: 'alice',
      scope: 'openid onceport:admin',
      iat: epoch(NOW),
      exp: epoch(NOW) + 300,
      ...claims,
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' })
      .sign(privateKey);
  const refusal = (result: AdminAuthentication) => {
    if (result.ok) throw new Error(`expected a refusal, got ${result.admin.id}`);
    return {
      status: result.problem.status,
      code: result.problem.code,
      detail: result.problem.detail,
      challenge: result.problem.headers['www-authenticate'],
    };
  };

  it('takes an admin key, and an operator token whose admin_claim an admin lists: the admin is that admin', async () => {
    expect(await auth().authenticate('Bearer op_alice')).toEqual({ ok: true, admin: expect.objectContaining({ id: 'ops:alice' }) });
    expect(await auth().authenticate(`Bearer ${await token()}`)).toEqual({ ok: true, admin: expect.objectContaining({ id: 'ops:alice' }) });
    // A token-only admin (no key) too.
    expect(await auth().authenticate(`Bearer ${await token({ sub: 'bob' })}`)).toMatchObject({
      ok: true,
      admin: { id: 'ops:bob', apiKeysSha256: [] },
    });
  });

  it('refuses with 401 and the admin realm: no credentials, an agent key, a token of no JWT shape', async () => {
    expect(refusal(await auth().authenticate(undefined))).toMatchObject({
      status: 401,
      code: 'unauthorized',
      challenge: 'Bearer realm="onceport-admin"',
    });
    expect(refusal(await auth().authenticate('Bearer agent-key'))).toMatchObject({
      status: 401,
      detail: 'The bearer token is neither an admin key of this installation nor a signed JWT access token.',
    });
    // Without an oauth: section, a JWT is just a wrong key: as before.
    expect(refusal(await auth(false).authenticate(`Bearer ${await token()}`))).toMatchObject({
      status: 401,
      detail: 'The bearer token is not an admin key of this installation.',
    });
  });

  it.each([
    ['expired', { exp: epoch(NOW) - 60 }, 'the token has expired'],
    ['for the agents’ resource', { aud: 'https://onceport.example/mcp' }, `its aud does not name ${ADMIN_AUDIENCE}`],
    ['from another issuer', { iss: 'https://evil.example' }, `the token was not issued by ${ISSUER}`],
  ])('refuses a token %s with 401 invalid_token, saying which check failed', async (_, claims, why) => {
    const signed = await token(claims);
    const refused = refusal(await auth().authenticate(`Bearer ${signed}`));
    expect(refused).toMatchObject({ status: 401, code: 'invalid_token' });
    expect(refused.detail).toContain(why);
    expect(refused.challenge).toContain('error="invalid_token"');
    expect(JSON.stringify(refused)).not.toContain(signed);
  });

  it('refuses a valid token without the admin scope, or naming no admin, with 403', async () => {
    expect(refusal(await auth().authenticate(`Bearer ${await token({ scope: 'openid' })}`))).toMatchObject({
      status: 403,
      code: 'insufficient_scope',
      challenge: expect.stringContaining('scope="onceport:admin"'),
    });
    const stranger = refusal(await auth().authenticate(`Bearer ${await token({ sub: 'mallory' })}`));
    expect(stranger).toMatchObject({ status: 403, code: 'not_an_admin' });
    expect(stranger.detail).toContain('its sub "mallory" is not an admin of this installation');
    // An agent's subject under the agent claim is no admin either.
    expect(refusal(await auth().authenticate(`Bearer ${await token({ sub: 'bot', client_id: 'alice' })}`))).toMatchObject({
      code: 'not_an_admin',
    });
  });

  it('answers 503 with Retry-After while the issuer’s keys cannot be had', async () => {
    keysDown = true;
    const problem = (await auth().authenticate(`Bearer ${await token()}`)) as {
      ok: false;
      problem: { status: number; headers: Record<string, string> };
    };
    expect(problem.problem).toMatchObject({ status: 503, headers: { 'retry-after': '30' } });
  });
});
