import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ActorDirectory, hashApiKey, parseActorsFile } from '@onceport/config';
import { SignJWT, decodeJwt, decodeProtectedHeader, generateKeyPair } from 'jose';
import { JwtResourceServer } from '../auth/oauth/oauth-resource-server';
import { answerProtectedResourceMetadata } from '../auth/oauth/protected-resource-metadata.controller';
import { ExecutionWatcher } from '../await-outcome/execution-watcher';
import type { IntakeDependencies } from '../intake-dependencies';
import { type IntakeHarness, startIntakeHarness } from '../testing/intake-harness';
import { type TestAuthorizationServer, startTestAuthorizationServer } from '@onceport/service-kit/testing';
import { AgentProcessesController } from './agent-processes.controller';
import { RestAgentProcesses } from './agent-processes';

const RESOURCE = 'https://onceport.test/mcp';
const METADATA_URL = 'https://onceport.test/.well-known/oauth-protected-resource/mcp';
const API_KEY = 'op_rest-oauth-key';
const TOOL_SCOPES = ['onceport:tool:create_deployment', 'onceport:tool:get_build_status'];

/**
 * Intake's REST API as an OAuth 2.1 resource server, against a real authorization server
 * (oidc-provider issuing client-credentials JWTs in a child process) and real PostgreSQL. Tokens
 * are checked by the issuer's JWKS (discovered from its metadata), `iss`, `exp` and `aud`; a
 * refused token creates nothing, and its 401/403 tells the client where the metadata is.
 */
describe('REST with OAuth access tokens beside API keys (real authorization server, real PostgreSQL)', () => {
  let h: IntakeHarness;
  let as: TestAuthorizationServer;
  let server: Server;
  let watcher: ExecutionWatcher;
  let base: string;

  beforeAll(async () => {
    [h, as] = await Promise.all([
      startIntakeHarness(),
      startTestAuthorizationServer({
        clients: [
          { clientId: 'deploy-bot', secret: 'deploy-bot-secret-0123456789', scope: TOOL_SCOPES.join(' ') },
          { clientId: 'short-lived-bot', secret: 'short-lived-secret-0123456789', accessTokenTtlSeconds: 1 },
          { clientId: 'stranger-bot', secret: 'stranger-bot-secret-0123456789' },
        ],
        scopes: TOOL_SCOPES,
      }),
    ]);
    // No jwks_uri: the keys are found through the issuer's metadata. No clock tolerance: the
    // expiry test then waits one second, not thirty.
    const directory = new ActorDirectory(
      parseActorsFile(
        `
oauth:
  issuer: ${as.issuer}
  resource: ${RESOURCE}
  actor_claim: client_id
  clock_tolerance_seconds: 0
actors:
  - id: agent:a
    api_keys_sha256: [${hashApiKey(API_KEY)}]
    tools: "*"
    oauth_subjects: [deploy-bot, short-lived-bot]
`,
        'oauth-actors.yaml',
      ),
    );
    const oauth = new JwtResourceServer(directory.oauth!, (subject) => directory.actorForOAuthSubject(subject)?.id ?? null, [
      ...h.deps.contracts.keys(),
    ]);
    const deps: IntakeDependencies = { ...h.deps, actors: directory, oauth };
    watcher = new ExecutionWatcher(h.ports.pool, () => undefined);
    await watcher.start();
    const executions = h.executionsController(deps, watcher);
    const processes = new AgentProcessesController(deps, new RestAgentProcesses(h.deps.em));
    server = createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/v1/executions') return void executions.create(req, res);
      if (req.method === 'POST' && req.url === '/v1/agent-processes') return void processes.issue(req, res);
      const get = /^\/v1\/executions\/([^/]+)$/.exec(req.url ?? '');
      if (req.method === 'GET' && get) return void executions.get(get[1] ?? '', req, res);
      if (req.method === 'GET' && req.url?.startsWith('/.well-known/')) return answerProtectedResourceMetadata(oauth, req, res);
      res.writeHead(404).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await watcher?.stop();
    await as?.close();
    await h?.close();
  });

  interface Reply {
    readonly status: number;
    readonly challenge: string | null;
    readonly body: Record<string, unknown>;
  }

  async function call(method: string, path: string, token: string | null, body?: unknown): Promise<Reply> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    return {
      status: response.status,
      challenge: response.headers.get('www-authenticate'),
      body: JSON.parse(text) as Record<string, unknown>,
    };
  }

  const deploy = (project: string) => ({
    tool: 'create_deployment',
    arguments: { project, environment: 'staging', version: '1.0.0' },
    wait_ms: 0,
  });
  const accepted = async (): Promise<Array<Record<string, unknown>>> =>
    (await h.allEvents()).filter((e) => e.type === 'ExecutionAccepted').map((e) => e.data);
  const tokenFor = async (clientId: string, request: { resource?: string; scope?: string } = {}): Promise<string> =>
    (await as.token(clientId, { resource: RESOURCE, ...request })).accessToken;

  /** A refusal must leave the store as it was: no claim, no execution. */
  async function expectNothingRecorded(refused: () => Promise<Reply>): Promise<Reply> {
    const before = (await h.allEvents()).length;
    const reply = await refused();
    expect((await h.allEvents()).length).toBe(before);
    return reply;
  }

  it('a valid token calls a tool as the actor its client_id is mapped to; the token never reaches the store', async () => {
    const token = await tokenFor('deploy-bot');
    const reply = await call('POST', '/v1/executions', token, deploy('oauth-valid'));
    expect(reply.status).toBe(202);
    const executionId = String(reply.body['execution_id']);
    const execution = (await accepted()).find((data) => data['executionId'] === executionId);
    expect(execution).toMatchObject({ actor: 'agent:a', tool: 'create_deployment' });
    // The dispatcher learns of a call only through the store: a token absent there cannot reach a target.
    const stored = JSON.stringify(await h.allEvents(), (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(token.split('.')[2]);

    const status = await call('GET', `/v1/executions/${executionId}`, token);
    expect(status).toMatchObject({ status: 200, body: { execution_id: executionId } });
    const issued = await call('POST', '/v1/agent-processes', token);
    expect(issued).toMatchObject({ status: 201, body: { actor: 'agent:a' } });
  });

  it('API keys keep working beside tokens, for the same actor', async () => {
    const reply = await call('POST', '/v1/executions', API_KEY, deploy('oauth-api-key'));
    expect(reply.status).toBe(202);
    expect((await accepted()).find((data) => data['executionId'] === reply.body['execution_id'])).toMatchObject({ actor: 'agent:a' });
  });

  it('no credentials: 401 whose challenge names the protected resource metadata, and no error code (RFC 6750 §3.1)', async () => {
    const reply = await expectNothingRecorded(() => call('POST', '/v1/executions', null, deploy('oauth-none')));
    expect(reply.status).toBe(401);
    expect(reply.challenge).toBe(`Bearer realm="onceport", resource_metadata="${METADATA_URL}"`);
    expect(reply.body).toMatchObject({ code: 'unauthorized' });
    expect(String(reply.body['detail'])).toContain(`an access token for ${RESOURCE}`);
  });

  it('an expired token: 401 invalid_token "the token has expired", nothing created', async () => {
    const token = await tokenFor('short-lived-bot');
    const { exp } = decodeJwt(token);
    // Wait for the state "exp has passed" on this machine's clock (the verifier tolerates 0 s here).
    const deadline = Date.now() + 5_000;
    while (Date.now() < (exp ?? 0) * 1000) {
      if (Date.now() > deadline) throw new Error('the short-lived token did not expire within 5 s');
      await sleep(50);
    }
    const reply = await expectNothingRecorded(() => call('POST', '/v1/executions', token, deploy('oauth-expired')));
    expect(reply.status).toBe(401);
    expect(reply.challenge).toBe(
      `Bearer realm="onceport", resource_metadata="${METADATA_URL}", error="invalid_token", error_description="the token has expired"`,
    );
    expect(reply.body).toMatchObject({ code: 'invalid_token', title: 'Invalid access token' });
    expect(JSON.stringify(reply)).not.toContain(token);
  });

  it('a token for another audience (RFC 8707): 401 invalid_token naming this resource, nothing created', async () => {
    const token = await tokenFor('deploy-bot', { resource: 'https://other.example/api' });
    expect(decodeJwt(token).aud).toBe('https://other.example/api');
    const reply = await expectNothingRecorded(() => call('POST', '/v1/executions', token, deploy('oauth-audience')));
    expect(reply.status).toBe(401);
    expect(reply.challenge).toContain('error="invalid_token"');
    expect(reply.challenge).toContain(`error_description="the token is not meant for this resource: its aud does not name ${RESOURCE}"`);
  });

  it('a token signed by a key the issuer does not publish (an unknown kid, or its own kid): 401 invalid_token, nothing created', async () => {
    const genuine = await tokenFor('deploy-bot');
    const { privateKey } = await generateKeyPair('RS256');
    const forge = (kid: string): Promise<string> =>
      new SignJWT({ client_id: 'deploy-bot', scope: TOOL_SCOPES.join(' ') })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid })
        .setIssuer(as.issuer)
        .setAudience(RESOURCE)
        .setSubject('deploy-bot')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    for (const kid of ['rogue-key', String(decodeProtectedHeader(genuine).kid)]) {
      const forged = await forge(kid);
      const refused = await expectNothingRecorded(() => call('POST', '/v1/executions', forged, deploy('oauth-forged')));
      expect(refused.status).toBe(401);
      expect(refused.challenge).toContain(
        'error="invalid_token", error_description="the token is not signed by a key of the configured issuer"',
      );
    }
  });

  it('a valid token from a client mapped to no actor: 403, the challenge saying so, nothing created', async () => {
    const token = await tokenFor('stranger-bot');
    const reply = await expectNothingRecorded(() => call('POST', '/v1/executions', token, deploy('oauth-stranger')));
    expect(reply.status).toBe(403);
    expect(reply.body).toMatchObject({ code: 'unknown_oauth_subject' });
    expect(reply.challenge).toContain(`resource_metadata="${METADATA_URL}"`);
    expect(reply.challenge).toContain('error_description="the token is valid, but its client_id stranger-bot names no actor');
    expect(await call('GET', '/v1/executions/exe_none', token)).toMatchObject({ status: 403 });
  });

  it('a token narrowed to get_build_status: 403 insufficient_scope for create_deployment, nothing created; its own tool is accepted', async () => {
    const token = await tokenFor('deploy-bot', { scope: 'onceport:tool:get_build_status' });
    const reply = await expectNothingRecorded(() => call('POST', '/v1/executions', token, deploy('oauth-narrowed')));
    expect(reply.status).toBe(403);
    expect(reply.body).toMatchObject({ code: 'insufficient_scope' });
    expect(reply.challenge).toBe(
      `Bearer realm="onceport", resource_metadata="${METADATA_URL}", error="insufficient_scope", error_description="this access token is limited to other tools than create_deployment", scope="onceport:tool:create_deployment"`,
    );
    const allowed = await call('POST', '/v1/executions', token, { tool: 'get_build_status', arguments: { build_id: 7 }, wait_ms: 0 });
    expect(allowed.status).toBe(202);
  });

  it('something that is neither an API key nor a JWT: 401 invalid_token, nothing created', async () => {
    const reply = await expectNothingRecorded(() => call('POST', '/v1/executions', 'op_not-a-key', deploy('oauth-garbage')));
    expect(reply.status).toBe(401);
    expect(reply.challenge).toContain(
      'error="invalid_token", error_description="the token is neither an API key of this server nor a signed JWT access token"',
    );
  });

  it('serves the protected resource metadata (RFC 9728) at the path-suffixed and the bare well-known path', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(5_000) });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        resource: RESOURCE,
        authorization_servers: [as.issuer],
        scopes_supported: ['charge_payment', 'create_deployment', 'get_build_status', 'send_email'].map((t) => `onceport:tool:${t}`),
        bearer_methods_supported: ['header'],
        resource_name: 'Onceport',
      });
    }
    expect((await fetch(`${base}/.well-known/oauth-protected-resource/other`)).status).toBe(404);
  });
});
