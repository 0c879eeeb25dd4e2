import { type AddressInfo } from 'node:net';
import { type Server, createServer } from 'node:http';
import { HttpException } from '@nestjs/common';
import { PROBLEM_TYPE_BASE, Problem, problemDetails, sendProblem, writeProblem } from './problem';
import { clientProblemOf, internalProblem } from './problem-details.filter';

describe('problem details (RFC 9457)', () => {
  it('one type-URI scheme, the code in snake_case beside it, extension members after the standard ones', () => {
    expect(
      problemDetails(
        422,
        'idempotency-key-reused',
        'Idempotency-Key reused',
        'use a new key',
        { execution_id: 'exe_1', status: 999 },
        '/v1/executions',
      ),
    ).toEqual({
      type: 'https://onceport.dev/problems/idempotency-key-reused',
      title: 'Idempotency-Key reused',
      status: 422,
      detail: 'use a new key',
      instance: '/v1/executions',
      code: 'idempotency_key_reused',
      execution_id: 'exe_1',
    });
    expect(new Problem(401, 'unauthorized', 'Admin key required', 'send a key').toJSON()).toEqual({
      type: `${PROBLEM_TYPE_BASE}unauthorized`,
      title: 'Admin key required',
      status: 401,
      detail: 'send a key',
      code: 'unauthorized',
    });
  });

  it("a Problem and a client's HttpException are told as they are; anything else only by a correlation id", () => {
    expect(clientProblemOf(new HttpException('Cannot GET /x', 404))?.toJSON()).toMatchObject({ status: 404, code: 'not_found' });
    const thrown = new Problem(409, 'vault_locked', 'Vault locked', 'unlock it first');
    expect(clientProblemOf(thrown)).toBe(thrown);
    expect(clientProblemOf(new Error('password=hunter2'))).toBeNull();
    expect(clientProblemOf(new HttpException('upstream said: password=hunter2', 502))).toBeNull();
    expect(internalProblem('err_1').toJSON()).toEqual({
      type: 'https://onceport.dev/problems/internal-error',
      title: 'Internal error',
      status: 500,
      detail: expect.stringContaining('correlation id err_1'),
      code: 'internal_error',
      correlation_id: 'err_1',
    });
  });

  describe('on the wire', () => {
    let server: Server;
    let url: string;
    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url?.startsWith('/admin'))
          return writeProblem(
            res,
            new Problem(401, 'unauthorized', 'Admin key required', 'send a key', { 'WWW-Authenticate': 'Bearer realm="onceport-admin"' }),
          );
        sendProblem(res, 429, 'rate_limited', 'Too many calls', 'slow down', { retry_after_s: 3 }, { 'Retry-After': '3' });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it('is application/problem+json with the request path (not its query) as instance, and its headers', async () => {
      const limited = await fetch(`${url}/v1/executions?key=secret`);
      expect({
        status: limited.status,
        type: limited.headers.get('content-type'),
        retry: limited.headers.get('retry-after'),
        body: await limited.json(),
      }).toEqual({
        status: 429,
        type: 'application/problem+json',
        retry: '3',
        body: {
          type: 'https://onceport.dev/problems/rate-limited',
          title: 'Too many calls',
          status: 429,
          detail: 'slow down',
          instance: '/v1/executions',
          code: 'rate_limited',
          retry_after_s: 3,
        },
      });
      const admin = await fetch(`${url}/admin/reviews`);
      expect({ status: admin.status, auth: admin.headers.get('www-authenticate'), body: await admin.json() }).toMatchObject({
        status: 401,
        auth: 'Bearer realm="onceport-admin"',
        body: { code: 'unauthorized', instance: '/admin/reviews' },
      });
    });
  });
});
