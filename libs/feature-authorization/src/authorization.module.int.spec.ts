import { waitFor } from '@onceport/messaging/testing';
import { type ServicePorts } from '@onceport/service-kit';
import { KEYS, seedAccepted } from './testing/authorization-fixtures';
import { type AuthorizationService, startAuthorizationService } from './testing/authorization-service';
import { executionStream } from '@onceport/event-store';

/** The module as a service wires it (runtime, consumer, admin API), in-process delivery, real PostgreSQL. */
describe('AuthorizationModule (real PostgreSQL, in-process delivery, HTTP)', () => {
  let service: AuthorizationService;
  let runtime: ServicePorts;
  let url: string;

  beforeAll(async () => {
    service = await startAuthorizationService();
    runtime = service.runtime;
    url = `${service.url}/v1/admin/vault`;
  });
  afterAll(() => service?.close());

  const post = (path: 'lock' | 'unlock', body: string | undefined, key: string | null = KEYS.alice) =>
    fetch(`${url}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      ...(body === undefined ? {} : { body }),
    });

  it('refuses calls without an admin key with 401 problem details, an agent key included, without reading the body', async () => {
    for (const response of [
      await post('lock', '{"reason":"x"}', null),
      await post('lock', '{"reason":"x"}', KEYS.deployBot),
      await fetch(url),
    ]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="onceport-admin"');
      expect(await response.json()).toMatchObject({
        type: 'https://onceport.dev/problems/unauthorized',
        code: 'unauthorized',
        status: 401,
        title: 'Admin key required',
      });
    }
    expect(await (await post('lock', 'not json', null)).json()).toMatchObject({ status: 401 });
  });

  it('refuses a lock without a reason, with a blank one, or with a malformed or huge body: 400/413 problem details', async () => {
    for (const body of [undefined, '{}', '{"reason":"   "}', '{"reason": 42}', '[]']) {
      const response = await post('lock', body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'reason_required', detail: expect.stringContaining('"reason"') });
    }
    expect(await (await post('lock', '{"reason":')).json()).toMatchObject({ status: 400, code: 'malformed_json' });
    expect((await post('lock', JSON.stringify({ reason: 'x'.repeat(20_000) }))).status).toBe(413);
    expect(await (await fetch(url, { headers: { authorization: `Bearer ${KEYS.alice}` } })).json()).toMatchObject({
      status: 'unlocked',
      version: 0,
    });
  });

  it('locks (idempotently), denies new calls while locked, and unlocks', async () => {
    const locked = await post('lock', '{"reason":"deploy key leaked"}');
    expect(locked.status).toBe(200);
    expect(await locked.json()).toMatchObject({
      status: 'locked',
      by: 'ops:alice',
      reason: 'deploy key leaked',
      changed: true,
      version: 1,
    });
    expect(await (await post('lock', '{"reason":"again"}')).json()).toMatchObject({
      status: 'locked',
      reason: 'deploy key leaked',
      changed: false,
      version: 1,
    });
    expect(await (await fetch(url, { headers: { authorization: `Bearer ${KEYS.alice}` } })).json()).toMatchObject({
      status: 'locked',
      by: 'ops:alice',
    });

    const denied = await seedAccepted(runtime.commands, runtime.store, { actor: 'agent:deploy-bot', tool: 'get_build_status' });
    runtime.delivery.nudge();
    const id = denied.stream.id.replace('execution-', '');
    await waitFor(async () => (await runtime.commands.load(executionStream(id))).state.status !== 'accepted', 15_000, 'a decision');
    expect((await runtime.commands.load(executionStream(id))).state).toMatchObject({ status: 'denied', denial: { code: 'vault_locked' } });

    expect(await (await post('unlock', '{"reason":"key rotated"}')).json()).toMatchObject({
      status: 'unlocked',
      by: 'ops:alice',
      changed: true,
      version: 2,
    });
    const authorized = await seedAccepted(runtime.commands, runtime.store, { actor: 'agent:deploy-bot', tool: 'get_build_status' });
    runtime.delivery.nudge();
    const next = authorized.stream.id.replace('execution-', '');
    await waitFor(async () => (await runtime.commands.load(executionStream(next))).state.status === 'authorized', 15_000, 'authorized');
  });
});
