import { createHash } from 'node:crypto';
import { HttpChannel } from './http-channel';
import { EXECUTION_ID, SECRET, httpContract } from '../../test/http/http-contract';
import { json, startLoopback, type LoopbackServer } from '../../test/http/loopback-server';

describe('HttpChannel.send against a real server: observed outcomes', () => {
  let server: LoopbackServer;
  let channel: HttpChannel;

  beforeEach(async () => {
    server = await startLoopback((req, res) => {
      if (req.url?.startsWith('/big')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(5000));
      } else if (req.url?.startsWith('/broken')) {
        json(res, 503, { error: 'maintenance' }, { 'retry-after': '5', 'set-cookie': 'session=abc' });
      } else {
        json(res, 201, { id: 'dep_1', state: 'created' }, { 'x-request-id': 'req-7', 'set-cookie': 'session=abc' });
      }
    });
    channel = new HttpChannel();
  });

  afterEach(async () => {
    await channel.close();
    await server.close();
  });

  it('returns a 201 as observed, with the body, a safe header subset and a sha256 digest', async () => {
    const outcome = await channel.send({
      contract: httpContract(server.origin),
      executionId: EXECUTION_ID,
      arguments: { project: 'shop', environment: 'staging', version: '1.4.2' },
      credential: SECRET,
    });

    expect(outcome.kind).toBe('observed');
    if (outcome.kind !== 'observed') return;
    expect(outcome.status).toBe(201);
    expect(JSON.parse(outcome.body.toString('utf8'))).toEqual({ id: 'dep_1', state: 'created' });
    expect(outcome.digest).toBe(`sha256:${createHash('sha256').update(outcome.body).digest('hex')}`);
    expect(outcome.contentType).toBe('application/json');
    expect(outcome.truncated).toBe(false);
    expect(outcome.headers['x-request-id']).toBe('req-7');
    expect(outcome.headers['set-cookie']).toBeUndefined();
  });

  it('sends the execution id as the idempotency key, the credential, static and trace headers, and a JSON body of the non-path arguments', async () => {
    await channel.send({
      contract: httpContract(server.origin),
      executionId: EXECUTION_ID,
      arguments: { project: 'shop', environment: 'staging', version: '1.4.2' },
      credential: SECRET,
      traceHeaders: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'Idempotency-Key': 'spoofed' },
    });

    const [request] = server.received;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/v1/projects/shop/deployments');
    expect(request?.headers['idempotency-key']).toBe(EXECUTION_ID);
    expect(request?.headers['authorization']).toBe(`Bearer ${SECRET}`);
    expect(request?.headers['accept']).toBe('application/json');
    expect(request?.headers['traceparent']).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual({ environment: 'staging', version: '1.4.2' });
  });

  it('uses the configured credential header scheme', async () => {
    const tokenChannel = new HttpChannel({ credentialHeader: { header: 'X-Api-Key', scheme: null } });
    await tokenChannel.send({
      contract: httpContract(server.origin),
      executionId: EXECUTION_ID,
      arguments: { project: 'p' },
      credential: SECRET,
    });
    await tokenChannel.close();

    expect(server.received[0]?.headers['x-api-key']).toBe(SECRET);
    expect(server.received[0]?.headers['authorization']).toBeUndefined();
  });

  it('reports a 5xx as observed too: the target answered', async () => {
    const outcome = await channel.send({
      contract: httpContract(server.origin, { path: '/broken/{project}' }),
      executionId: EXECUTION_ID,
      arguments: { project: 'p' },
      credential: SECRET,
    });

    expect(outcome).toMatchObject({ kind: 'observed', status: 503, headers: { 'retry-after': '5' } });
  });

  it('cuts a body over maxResponseBytes at the cap and still reports it as observed', async () => {
    const outcome = await channel.send({
      contract: httpContract(server.origin, { path: '/big/{project}', maxResponseBytes: 1000 }),
      executionId: EXECUTION_ID,
      arguments: { project: 'p' },
      credential: SECRET,
    });

    expect(outcome).toMatchObject({ kind: 'observed', status: 200, truncated: true });
    if (outcome.kind !== 'observed') return;
    expect(outcome.body.length).toBe(1000);
    expect(outcome.digest).toBe(`sha256:${createHash('sha256').update('x'.repeat(1000)).digest('hex')}`);
  });

  it('reuses one keep-alive connection for many sequential sends', async () => {
    for (let i = 0; i < 25; i += 1) {
      const outcome = await channel.send({
        contract: httpContract(server.origin),
        executionId: `${EXECUTION_ID}${i}`,
        arguments: { project: `p${i}` },
        credential: SECRET,
      });
      expect(outcome.kind).toBe('observed');
    }

    expect(server.received).toHaveLength(25);
    // undici checks an idle socket for a pending FIN/RST for one event-loop turn before reusing
    // it, so a back-to-back send may open a second connection; never one per send.
    expect(server.connections()).toBeLessThanOrEqual(2);
  });

  it('never opens more connections per origin than configured', async () => {
    const bounded = new HttpChannel({ connectionsPerOrigin: 1 });
    const sends = Array.from({ length: 10 }, (_, i) =>
      bounded.send({
        contract: httpContract(server.origin),
        executionId: `${EXECUTION_ID}${i}`,
        arguments: { project: `p${i}` },
        credential: SECRET,
      }),
    );

    const outcomes = await Promise.all(sends);
    await bounded.close();

    expect(outcomes.every((o) => o.kind === 'observed')).toBe(true);
    expect(server.connections()).toBe(1);
  });

  it('does not turn a connection the server closed while idle into an unknown outcome', async () => {
    server.setKeepAliveTimeout(50);
    const send = () =>
      channel.send({ contract: httpContract(server.origin), executionId: EXECUTION_ID, arguments: { project: 'p' }, credential: SECRET });

    expect((await send()).kind).toBe('observed');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await send()).kind).toBe('observed');
    expect(server.connections()).toBe(2);
  });

  it('refuses to send after close, as failed before send', async () => {
    await channel.close();

    const outcome = await channel.send({
      contract: httpContract(server.origin),
      executionId: EXECUTION_ID,
      arguments: { project: 'p' },
      credential: SECRET,
    });

    expect(outcome).toMatchObject({ kind: 'failed_before_send', code: 'channel_closed' });
    expect(server.received).toHaveLength(0);
  });
});
