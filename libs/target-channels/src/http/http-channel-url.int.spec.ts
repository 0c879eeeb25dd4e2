import { HttpChannel } from './http-channel';
import { EXECUTION_ID, SECRET, httpContract } from '../../test/http/http-contract';
import { json, startLoopback, type LoopbackServer } from '../../test/http/loopback-server';

describe('HttpChannel.send: URLs come from the contract only', () => {
  let server: LoopbackServer;
  let channel: HttpChannel;

  beforeEach(async () => {
    server = await startLoopback((_req, res) => json(res, 200, { ok: true }));
    channel = new HttpChannel();
  });

  afterEach(async () => {
    await channel.close();
    await server.close();
  });

  const send = (path: string, args: Record<string, string | number>) =>
    channel.send({ contract: httpContract(server.origin, { path }), executionId: EXECUTION_ID, arguments: args, credential: SECRET });

  it('URL-encodes placeholder values, so an argument cannot add segments, a query or a fragment', async () => {
    const outcome = await send('/v1/projects/{project}/deployments', { project: 'a b/../c?x=1#f' });

    expect(outcome.kind).toBe('observed');
    expect(server.received[0]?.url).toBe('/v1/projects/a%20b%2F..%2Fc%3Fx%3D1%23f/deployments');
  });

  it('keeps non-path arguments out of the URL and numbers in placeholders as text', async () => {
    await send('/api/builds/{build_id}', { build_id: 42, note: 'n' });

    expect(server.received[0]?.url).toBe('/api/builds/42');
  });

  it.each([
    ['a dot-dot argument', '/v1/projects/{project}/deployments', { project: '..' }],
    ['a template leaving the origin', '//evil.example.com/{project}', { project: 'p' }],
    ['a template with an authority trick', '@evil.example.com/{project}', { project: 'p' }],
  ])('refuses %s before anything is sent', async (_label, path, args) => {
    const outcome = await send(path, args);

    expect(outcome).toMatchObject({ kind: 'failed_before_send', code: 'url_refused', retryable: false });
    expect(server.received).toHaveLength(0);
  });

  it.each([
    ['a missing argument', {}],
    ['an empty argument', { project: '' }],
  ])('refuses %s for a placeholder as bad arguments', async (_label, args) => {
    const outcome = await send('/v1/projects/{project}/deployments', args);

    expect(outcome).toMatchObject({ kind: 'failed_before_send', code: 'bad_arguments', retryable: false });
    expect(server.received).toHaveLength(0);
  });

  it('refuses to send without the credential the contract names', async () => {
    const outcome = await channel.send({
      contract: httpContract(server.origin),
      executionId: EXECUTION_ID,
      arguments: { project: 'p' },
      credential: null,
    });

    expect(outcome).toMatchObject({ kind: 'failed_before_send', code: 'missing_credential' });
    expect(server.received).toHaveLength(0);
  });
});
