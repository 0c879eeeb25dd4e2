import { TestTargetError, type TestTarget, remoteTestTarget, startTestTarget } from './index';
import { call, post } from '../test/http';

describe('test target: control API and in-process handle', () => {
  let target: TestTarget;

  beforeEach(async () => {
    target = await startTestTarget();
  });

  afterEach(async () => {
    await target.stop();
  });

  it('lists effects with filters over GET /__control/effects', async () => {
    await post(`${target.url}/v1/projects/a/deployments`, {}, 'k1');
    await post(`${target.url}/v1/deployments/b`, {}, 'k2');
    await post(`${target.url}/v1/emails`, { to: 'x@y.z' }, 'k3');

    const all = await call(`${target.url}/__control/effects`, 'GET');
    const deployments = await call(`${target.url}/__control/effects?route=deployments`, 'GET');
    const byKey = await call(`${target.url}/__control/effects?idempotency_key=k3`, 'GET');

    expect(all.json).toMatchObject({ count: 3 });
    expect(deployments.json).toMatchObject({ count: 2, effects: [{ params: { project: 'a' } }, { params: { service: 'b' } }] });
    expect(byKey.json).toMatchObject({ count: 1, effects: [{ route: 'emails', body: { to: 'x@y.z' } }] });
    expect((await call(`${target.url}/__control/effects?route=deployment`, 'GET')).status).toBe(400);
  });

  it('resets effects, stored answers and behaviours over POST /__control/reset', async () => {
    await call(`${target.url}/__control/behavior`, 'POST', { honour_idempotency: false, route: 'payments' });
    await post(`${target.url}/v1/payments`, { amount_cents: 5 }, 'k1');

    expect((await call(`${target.url}/__control/reset`, 'POST')).status).toBe(204);

    expect(target.effectCount()).toBe(0);
    expect((await call(`${target.url}/__control/behavior`, 'GET')).json).toEqual({ modes: {}, honour_idempotency: {} });
    expect((await call(`${target.url}/v1/charges/by-key/k1`, 'GET')).status).toBe(404);
  });

  it('refuses an invalid behaviour with a problem that names it', async () => {
    const twoModes = await call(`${target.url}/__control/behavior`, 'POST', { fail_status: 500, accept_then_drop: true });
    const badRoute = await call(`${target.url}/__control/behavior`, 'POST', { route: 'deploymnts', fail_status: 500 });

    expect(twoModes).toMatchObject({ status: 400, json: { detail: expect.stringContaining('one mode at a time') } });
    expect(badRoute).toMatchObject({ status: 400, json: { detail: expect.stringContaining('expected a route name') } });
    expect(() => target.setBehavior({ fail_status: 200 })).toThrow(TestTargetError);
  });

  it('is driven the same way in-process and through remoteTestTarget', async () => {
    const remote = remoteTestTarget(target.url);
    target.setBehavior({ route: 'emails', apply_then_fail_status: 502, times: 1 });

    expect((await post(`${target.url}/v3/messages`, { n: 1 }, 'm1')).status).toBe(502);
    await remote.setBehavior({ route: 'emails', fail_status: 500 });
    expect((await post(`${target.url}/v3/messages`, { n: 2 }, 'm2')).status).toBe(500);

    expect(await remote.effectCount({ route: 'emails' })).toBe(1);
    expect((await remote.effects({ idempotencyKey: 'm1' }))[0]).toEqual(target.effects()[0]);
    await expect(remote.setBehavior({ delay_ms: -1 })).rejects.toMatchObject({ code: 'invalid_behavior' });
    await remote.reset();
    expect(target.effectCount()).toBe(0);
  });

  it('answers 404 for unknown paths and 405 for a wrong method', async () => {
    expect((await call(`${target.url}/v1/nothing`, 'GET')).status).toBe(404);
    expect((await call(`${target.url}/v1/charges`, 'GET')).status).toBe(405);
  });

  it('uses the configured idempotency header', async () => {
    const other = await startTestTarget({ idempotencyHeader: 'X-Request-Key' });
    await call(`${other.url}/v1/charges`, 'POST', {}, { 'x-request-key': 'r1' });
    await call(`${other.url}/v1/charges`, 'POST', {}, { 'x-request-key': 'r1' });

    expect(other.effects()).toEqual([expect.objectContaining({ idempotencyKey: 'r1' })]);
    await other.stop();
  });
});
