import { executionStream } from '@onceport/event-store';
import { waitFor } from '@onceport/messaging/testing';
import { type TestAuthorizationServer, startTestAuthorizationServer } from '@onceport/service-kit/testing';
import { ACTORS_YAML, KEYS, seedAccepted, testDirectory } from '../testing/authorization-fixtures';
import { type AuthorizationService, startAuthorizationService } from '../testing/authorization-service';

const ADMIN_AUDIENCE = 'http://127.0.0.1/onceport-admin';

/**
 * Operators as admins by OAuth, against the service as it runs (real PostgreSQL, HTTP) and a real
 * authorization server (oidc-provider in its own process) issuing the tokens: a token whose client
 * an admin lists, for the admin audience, with onceport:admin, decides an approval recorded as that
 * admin's; a token for another audience, one without the scope, one of a client no admin lists, and
 * an expired one are refused, each with its problem — and no answer carries the token.
 */
describe('admin API: operators’ OAuth access tokens (real oidc-provider, PostgreSQL, HTTP)', () => {
  let as: TestAuthorizationServer;
  let service: AuthorizationService;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({
      clients: [
        { clientId: 'ops-carol', secret: 'carol-secret', scope: 'onceport:admin' },
        { clientId: 'ops-carol-short', secret: 'short-secret', scope: 'onceport:admin', accessTokenTtlSeconds: 1 },
        { clientId: 'intruder', secret: 'intruder-secret', scope: 'onceport:admin' },
      ],
      scopes: ['onceport:admin'],
    });
    // Client-credentials tokens name their client in client_id: admin_claim says so. No clock leeway, so expiry shows at once.
    const yaml = `oauth:
  issuer: ${as.issuer}
  resource: http://127.0.0.1/mcp
  admin_audience: ${ADMIN_AUDIENCE}
  admin_claim: client_id
  clock_tolerance_seconds: 0
${ACTORS_YAML.replace(/^\n/, '')}    oauth_subjects: [ops-carol, ops-carol-short]
`;
    service = await startAuthorizationService({ directory: testDirectory(yaml) });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await as?.close();
  });

  const token = async (client: string, resource = ADMIN_AUDIENCE, scope = 'onceport:admin') =>
    (await as.token(client, { resource, scope })).accessToken;
  const call = async (method: string, path: string, bearer: string, body?: unknown) => {
    const response = await fetch(`${service.url}/v1/admin${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      challenge: response.headers.get('www-authenticate'),
      text,
      body: JSON.parse(text) as Record<string, unknown>,
    };
  };

  it('grants an approval with an operator’s token: the decision is recorded as the admin the token’s client is', async () => {
    const runtime = service.runtime;
    const event = await seedAccepted(runtime.commands, runtime.store, {
      actor: 'agent:pay-bot',
      tool: 'charge_payment',
      arguments: { customer_id: 'cus_oauth' },
    });
    runtime.delivery.nudge();
    const id = event.stream.id.replace('execution-', '');
    const bearer = await token('ops-carol');
    let pending: { execution_id: string; approval_id: string } | undefined;
    await waitFor(
      async () => {
        const list = await call('GET', '/approvals', bearer);
        pending = (list.body['approvals'] as { execution_id: string; approval_id: string }[]).find((a) => a.execution_id === id);
        return pending !== undefined;
      },
      15_000,
      'the approval request',
    );
    const granted = await call('POST', `/approvals/${pending!.approval_id}/grant`, bearer, { reason: 'checked with the customer' });
    expect(granted).toMatchObject({ status: 200, body: { status: 'granted', decided_by: 'ops:alice' } });
    const evidence = (await runtime.commands.load(executionStream(id))).events.find((e) => e.type === 'ApprovalGranted');
    expect(evidence?.data).toMatchObject({ approver: 'ops:alice', reason: 'checked with the customer' });
    // The admin key still works beside tokens.
    expect((await call('GET', '/vault', KEYS.alice)).status).toBe(200);
  });

  it('refuses a token for another audience, without the admin scope, or of a client no admin lists', async () => {
    const agentAudience = await call('GET', '/vault', await token('ops-carol', 'http://127.0.0.1/mcp'));
    expect(agentAudience).toMatchObject({ status: 401, body: { code: 'invalid_token' } });
    expect(agentAudience.body['detail']).toContain(`its aud does not name ${ADMIN_AUDIENCE}`);
    expect(agentAudience.challenge).toContain('realm="onceport-admin"');
    expect(agentAudience.challenge).toContain('error="invalid_token"');

    const noScope = await call('GET', '/vault', (await as.token('ops-carol', { resource: ADMIN_AUDIENCE })).accessToken);
    expect(noScope).toMatchObject({ status: 403, body: { code: 'insufficient_scope' } });

    const intruderToken = await token('intruder');
    const intruder = await call('POST', '/vault/lock', intruderToken, { reason: 'not mine to lock' });
    expect(intruder).toMatchObject({ status: 403, body: { code: 'not_an_admin' } });
    expect(intruder.body['detail']).toContain('"intruder" is not an admin of this installation');
    expect(intruder.text).not.toContain(intruderToken);
    expect((await call('GET', '/vault', KEYS.alice)).body).toMatchObject({ status: 'unlocked' });
  });

  it('refuses a token once it has expired', async () => {
    const short = await token('ops-carol-short');
    let refused = await call('GET', '/vault', short);
    await waitFor(async () => (refused = await call('GET', '/vault', short)).status === 401, 15_000, 'the one-second token to expire');
    expect(refused.body).toMatchObject({ code: 'invalid_token', detail: expect.stringContaining('the token has expired') });
  });
});
