import type { HttpProbe } from '@onceport/domain';
import { HttpChannel } from './http-channel';
import { EXECUTION_ID, SECRET, httpContract } from '../../test/http/http-contract';
import { json, startLoopback, type LoopbackServer } from '../../test/http/loopback-server';

const states: Record<string, string> = { [EXECUTION_ID]: 'succeeded', exe_pending: 'pending' };

describe('HttpChannel.probe: verdicts from the contract probe', () => {
  let server: LoopbackServer;
  let channel: HttpChannel;

  beforeEach(async () => {
    server = await startLoopback((req, res) => {
      const key = decodeURIComponent(req.url?.split('/').pop() ?? '');
      if (key === 'exe_flaky') json(res, 500, { error: 'db down' });
      else if (key === 'exe_drop') req.socket.destroy();
      else if (states[key]) json(res, 200, { key, state: states[key] });
      else json(res, 404, { error: 'not found' });
    });
    channel = new HttpChannel();
  });

  afterEach(async () => {
    await channel.close();
    await server.close();
  });

  const probe = (executionId: string, overrides: Partial<HttpProbe> = {}) => {
    const declared: HttpProbe = {
      kind: 'http',
      method: 'GET',
      path: '/v1/deployments/by-key/{execution_id}',
      applied: { status: [200], match: { jsonPath: '$.state', equals: 'succeeded' } },
      notApplied: { status: [404] },
      ...overrides,
    };
    return channel.probe({
      contract: httpContract(server.origin, {}, { probe: declared }),
      executionId,
      arguments: { project: 'p' },
      credential: SECRET,
    });
  };

  it('says applied when the status and the JSON path match, and hands back the answer (the result the dispatch lost)', async () => {
    const result = await probe(EXECUTION_ID);
    expect(result).toMatchObject({ verdict: 'applied', status: 200, answer: { status: 200 } });
    expect(JSON.parse(result.answer?.body.toString('utf8') ?? 'null')).toEqual({ key: EXECUTION_ID, state: 'succeeded' });
    expect(server.received[0]?.url).toBe(`/v1/deployments/by-key/${EXECUTION_ID}`);
    expect(server.received[0]?.headers['authorization']).toBe(`Bearer ${SECRET}`);
    expect(server.received[0]?.headers['idempotency-key']).toBeUndefined();
  });

  it('says not applied for a not_applied status', async () => {
    expect(await probe('exe_missing')).toMatchObject({ verdict: 'not_applied', status: 404 });
  });

  it("can't tell when the resource exists in another state", async () => {
    const result = await probe('exe_pending');

    expect(result).toMatchObject({ verdict: 'cant_tell', status: 200 });
    expect(result.detail).toContain('"pending"');
  });

  it("can't tell for a status in neither list, or when the probe itself gets no answer", async () => {
    expect(await probe('exe_flaky')).toMatchObject({ verdict: 'cant_tell', status: 500 });
    expect(await probe('exe_drop')).toMatchObject({ verdict: 'cant_tell', status: null, answer: null });
  });

  it('judges by status alone when no JSON path is declared, also with HEAD', async () => {
    expect(await probe('exe_pending', { method: 'HEAD', applied: { status: [200], match: null } })).toMatchObject({ verdict: 'applied' });
    expect(server.received[0]?.method).toBe('HEAD');
  });

  it("can't tell when the contract declares no probe", async () => {
    const result = await channel.probe({
      contract: httpContract(server.origin),
      executionId: EXECUTION_ID,
      arguments: {},
      credential: SECRET,
    });

    expect(result.verdict).toBe('cant_tell');
    expect(server.received).toHaveLength(0);
  });
});
