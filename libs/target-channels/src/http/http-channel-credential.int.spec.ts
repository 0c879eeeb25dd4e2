import { HttpChannel } from './http-channel';
import type { HttpOutcome } from './http-outcome';
import { EXECUTION_ID, SECRET, httpContract } from '../../test/http/http-contract';
import { json, startLoopback, type LoopbackServer } from '../../test/http/loopback-server';

/** Everything an outcome could carry into an event, a log line or an agent's answer. */
function everythingIn(outcome: HttpOutcome): string {
  const body = outcome.kind === 'observed' ? outcome.body.toString('utf8') : '';
  return JSON.stringify(outcome) + body;
}

describe('HttpChannel: the credential never leaves in an outcome', () => {
  let server: LoopbackServer;
  let channel: HttpChannel;

  beforeEach(async () => {
    server = await startLoopback((req, res) => {
      const auth = req.headers['authorization'] ?? '';
      if (req.url?.startsWith('/echo')) json(res, 401, { received: auth }, { 'www-authenticate': auth, 'x-request-id': auth });
      else if (req.url?.startsWith('/drop')) req.socket.destroy();
      else if (req.url?.startsWith('/silent')) return;
      else json(res, 201, { ok: true });
    });
    channel = new HttpChannel();
  });

  afterEach(async () => {
    await channel.close();
    await server.close();
  });

  const send = (path: string, credential: string, timeoutMs = 2_000) =>
    channel.send({
      contract: httpContract(server.origin, { path, timeoutMs }),
      executionId: EXECUTION_ID,
      arguments: { project: 'p' },
      credential,
    });

  it('scrubs a target that echoes the credential in its body and headers', async () => {
    const outcome = await send('/echo/{project}', SECRET);

    expect(outcome).toMatchObject({ kind: 'observed', status: 401, credentialRedacted: true });
    expect(everythingIn(outcome)).not.toContain(SECRET);
  });

  it.each([
    ['observed', '/ok/{project}'],
    ['unknown after a drop', '/drop/{project}'],
    ['unknown after a timeout', '/silent/{project}'],
  ])('keeps it out of an outcome: %s', async (_label, path) => {
    const outcome = await send(path, SECRET, 200);

    expect(everythingIn(outcome)).not.toContain(SECRET);
  });

  it('keeps it out of a refused connection', async () => {
    const closed = await startLoopback(() => undefined);
    await closed.close();

    const outcome = await channel.send({
      contract: httpContract(closed.origin),
      executionId: EXECUTION_ID,
      arguments: { project: 'p' },
      credential: SECRET,
    });

    expect(outcome.kind).toBe('failed_before_send');
    expect(everythingIn(outcome)).not.toContain(SECRET);
  });

  it('refuses a credential that cannot be a header value without quoting it', async () => {
    const bad = `${SECRET}\r\nX-Injected: 1`;

    const outcome = await send('/ok/{project}', bad);

    expect(outcome).toMatchObject({ kind: 'failed_before_send', code: 'bad_credential' });
    expect(everythingIn(outcome)).not.toContain(SECRET);
    expect(server.received).toHaveLength(0);
  });

  it('keeps it out of probe details', async () => {
    const contract = httpContract(
      server.origin,
      {},
      {
        probe: {
          kind: 'http',
          method: 'GET',
          path: '/echo/{execution_id}',
          applied: { status: [200], match: null },
          notApplied: { status: [404] },
        },
      },
    );

    const result = await channel.probe({ contract, executionId: EXECUTION_ID, arguments: {}, credential: SECRET });

    expect(JSON.stringify(result)).not.toContain(SECRET);
    // The answer a probe hands back (kept as a result when applied) is scrubbed like a send's.
    expect(result.answer?.body.toString('utf8')).toContain('received');
    expect(result.answer?.body.toString('utf8')).not.toContain(SECRET);
  });
});
