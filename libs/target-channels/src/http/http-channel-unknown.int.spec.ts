import { HttpChannel } from './http-channel';
import { EXECUTION_ID, SECRET, httpContract } from '../../test/http/http-contract';
import { json, startLoopback, type LoopbackServer } from '../../test/http/loopback-server';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('HttpChannel.send: failed before send versus unknown', () => {
  let server: LoopbackServer;
  let channel: HttpChannel;

  beforeEach(async () => {
    server = await startLoopback((req, res) => {
      if (req.url?.startsWith('/drop'))
        req.socket.destroy(); // body read in full, then no answer
      else if (req.url?.startsWith('/silent'))
        return; // never answers
      else if (req.url?.startsWith('/half')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"id":"dep_');
        setTimeout(() => req.socket.destroy(), 20);
      } else if (req.url?.startsWith('/slow')) setTimeout(() => json(res, 201, { ok: true }), 400);
      else json(res, 201, { ok: true });
    });
    channel = new HttpChannel();
  });

  afterEach(async () => {
    await channel.close();
    await server.close();
  });

  it('reports a refused connection as failed before send, retryable', async () => {
    const closed = await startLoopback(() => undefined);
    await closed.close();

    const outcome = await channel.send({
      contract: httpContract(closed.origin),
      executionId: EXECUTION_ID,
      arguments: { project: 'p' },
      credential: SECRET,
    });

    expect(outcome).toMatchObject({ kind: 'failed_before_send', code: 'connect_refused', retryable: true });
  });

  it('reports an unresolvable host as failed before send', async () => {
    const contract = httpContract('http://onceport-test.invalid', { timeoutMs: 3_000 });

    const outcome = await channel.send({ contract, executionId: EXECUTION_ID, arguments: { project: 'p' }, credential: SECRET });

    expect(outcome).toMatchObject({ kind: 'failed_before_send', retryable: true });
  });

  it('reports a socket destroyed after the server read the request as unknown', async () => {
    const outcome = await channel.send({
      contract: httpContract(server.origin, { path: '/drop/{project}' }),
      executionId: EXECUTION_ID,
      arguments: { project: 'p', v: '1' },
      credential: SECRET,
    });

    expect(outcome).toMatchObject({ kind: 'unknown', code: 'connection_lost', stage: 'request_written' });
    expect(server.received).toHaveLength(1); // the effect may well have happened
  });

  it('reports a server that answers past the timeout as unknown', async () => {
    const outcome = await channel.send({
      contract: httpContract(server.origin, { path: '/silent/{project}', timeoutMs: 200 }),
      executionId: EXECUTION_ID,
      arguments: { project: 'p' },
      credential: SECRET,
    });

    expect(outcome.kind).toBe('unknown');
    expect(outcome).toMatchObject({ stage: 'request_written' });
    expect(['timeout', 'headers_timeout']).toContain(outcome.kind === 'unknown' ? outcome.code : null);
  });

  it('reports a connection lost in the middle of the response body as unknown, after the response started', async () => {
    const outcome = await channel.send({
      contract: httpContract(server.origin, { path: '/half/{project}' }),
      executionId: EXECUTION_ID,
      arguments: { project: 'p' },
      credential: SECRET,
    });

    expect(outcome).toMatchObject({ kind: 'unknown', stage: 'response_started' });
  });

  it('reports a request whose deadline passed while it waited for a connection as failed before send, and never sends it later', async () => {
    const single = new HttpChannel({ connectionsPerOrigin: 1 });
    const slow = single.send({
      contract: httpContract(server.origin, { path: '/slow/{project}' }),
      executionId: EXECUTION_ID,
      arguments: { project: 'first' },
      credential: SECRET,
    });
    const queued = await single.send({
      contract: httpContract(server.origin, { timeoutMs: 100 }),
      executionId: EXECUTION_ID,
      arguments: { project: 'second' },
      credential: SECRET,
    });

    expect(queued).toMatchObject({ kind: 'failed_before_send', code: 'timeout_before_send', retryable: true });
    expect(await slow).toMatchObject({ kind: 'observed', status: 201 });
    await sleep(200);
    expect(server.received.map((r) => r.url)).toEqual(['/slow/first']);
    await single.close();
  });

  it('keeps working after an unknown outcome (the broken connection is not reused)', async () => {
    await channel.send({
      contract: httpContract(server.origin, { path: '/drop/{project}' }),
      executionId: EXECUTION_ID,
      arguments: { project: 'p' },
      credential: SECRET,
    });

    const outcome = await channel.send({
      contract: httpContract(server.origin),
      executionId: EXECUTION_ID,
      arguments: { project: 'p' },
      credential: SECRET,
    });

    expect(outcome).toMatchObject({ kind: 'observed', status: 201 });
  });
});
