import { createHash } from 'node:crypto';
import { startTestTarget, type TestTarget } from './index';
import { call, post } from '../test/http';

describe('test target: behaviours, driven over real HTTP', () => {
  let target: TestTarget;
  const deploy = (key?: string, project = 'shop') => post(`${target.url}/v1/projects/${project}/deployments`, { version: '1.2.3' }, key);
  const control = (spec: unknown) => call(`${target.url}/__control/behavior`, 'POST', spec);

  beforeEach(async () => {
    target = await startTestTarget();
  });

  afterEach(async () => {
    await target.stop();
  });

  it('normal: applies the effect once, records it, and the status endpoint reports it by key', async () => {
    const answer = await deploy('exe_A');

    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({ id: 'dep_0001', state: 'succeeded', idempotency_key: 'exe_A' });
    expect(target.effects()).toEqual([
      expect.objectContaining({
        id: 'dep_0001',
        route: 'deployments',
        idempotencyKey: 'exe_A',
        params: { project: 'shop' },
        body: { version: '1.2.3' },
      }),
    ]);
    expect((await call(`${target.url}/v1/deployments/by-key/exe_A`, 'GET')).status).toBe(200);
    expect((await call(`${target.url}/v1/deployments/by-key/exe_B`, 'GET')).status).toBe(404);
  });

  it('records a SHA-256 of the Authorization header it received, never the header itself', async () => {
    await call(`${target.url}/v1/projects/shop/deployments`, 'POST', { version: '1' }, { authorization: 'Bearer s3cret-value' });
    await deploy('exe_no_auth');

    const [withAuth, without] = target.effects();
    expect(withAuth?.authorizationSha256).toBe(createHash('sha256').update('Bearer s3cret-value').digest('hex'));
    expect(without?.authorizationSha256).toBeNull();
    expect(JSON.stringify(target.effects())).not.toContain('s3cret-value');
  });

  it('honour_idempotency (default true): a repeated key replays the stored answer and applies nothing', async () => {
    const first = await deploy('exe_A');
    const second = await deploy('exe_A');

    expect(second.json).toEqual(first.json);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(target.effectCount({ route: 'deployments' })).toBe(1);
  });

  it('honour_idempotency false: a repeated key applies again', async () => {
    await control({ honour_idempotency: false });

    await deploy('exe_A');
    await deploy('exe_A');

    expect(target.effectCount({ idempotencyKey: 'exe_A' })).toBe(2);
  });

  it('applies every call that carries no idempotency key', async () => {
    await deploy();
    await deploy();

    expect(target.effectCount()).toBe(2);
  });

  it('accept_then_drop: applies the effect, then destroys the socket without answering', async () => {
    await control({ route: 'deployments', accept_then_drop: true });

    await expect(deploy('exe_A')).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(target.effectCount({ idempotencyKey: 'exe_A' })).toBe(1);
    expect((await call(`${target.url}/v1/deployments/by-key/exe_A`, 'GET')).status).toBe(200);
  });

  it('delay_ms: applies at once, answers after the delay', async () => {
    await control({ delay_ms: 300 });

    const answer = await deploy('exe_A');
    const answeredAt = Date.now();

    expect(answer.status).toBe(201);
    const [effect] = target.effects();
    // Applied when the request arrived, not when the answer left.
    expect(answeredAt - Date.parse(effect!.appliedAt)).toBeGreaterThanOrEqual(280);
  });

  it('fail_status: applies nothing and answers with the status', async () => {
    await control({ fail_status: 503 });

    const answer = await deploy('exe_A');

    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(target.effectCount()).toBe(0);
  });

  it('apply_then_fail_status: applies the effect and answers with the status', async () => {
    await control({ apply_then_fail_status: 500 });

    expect((await deploy('exe_A')).status).toBe(500);
    expect(target.effectCount()).toBe(1);
  });

  it('times: 1 makes only the first call misbehave', async () => {
    await control({ fail_status: 502, times: 1 });

    expect((await deploy('exe_A')).status).toBe(502);
    expect((await deploy('exe_A')).status).toBe(201);
    expect(target.effectCount()).toBe(1);
  });

  it('a one-shot mode expiring keeps honour_idempotency as set', async () => {
    await control({ honour_idempotency: false });
    await control({ accept_then_drop: true, times: 1 });

    await expect(deploy('exe_A')).rejects.toBeDefined();
    await deploy('exe_A');

    expect(target.effectCount()).toBe(2);
  });

  it('scopes a route behaviour to that route; a global one reaches effect routes, not status endpoints', async () => {
    await control({ route: 'emails', fail_status: 500 });
    expect((await deploy('exe_A')).status).toBe(201);
    expect((await post(`${target.url}/v3/messages`, { to: 'a@b.c' }, 'exe_M')).status).toBe(500);

    await control({ fail_status: 503 });
    expect((await post(`${target.url}/v1/charges`, { amount_cents: 1 }, 'exe_C')).status).toBe(503);
    expect((await call(`${target.url}/v1/deployments/by-key/exe_A`, 'GET')).status).toBe(200);
  });

  it('can make a status endpoint misbehave when named', async () => {
    await deploy('exe_A');
    await control({ route: 'deployments.status', fail_status: 500, times: 1 });

    expect((await call(`${target.url}/v1/deployments/by-key/exe_A`, 'GET')).status).toBe(500);
    expect((await call(`${target.url}/v1/deployments/by-key/exe_A`, 'GET')).status).toBe(200);
  });

  it('serves the read-only build status without recording an effect', async () => {
    const answer = await call(`${target.url}/api/builds/42`, 'GET');

    expect(answer).toMatchObject({ status: 200, json: { id: '42', status: 'passed' } });
    expect(target.effectCount()).toBe(0);
  });
});
