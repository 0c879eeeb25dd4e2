import { REMOTE_COMMAND } from './build-script';
import { SshChannel } from './ssh-channel';
import { type ExecBehaviour, type FakeSshServer, newExecutionId, sshContract, startFakeSshServer } from '../testing';

// Faults on cue, against ssh2's in-process server: what the channel concludes when the host
// misbehaves at each step. (A real host's behaviour is covered against OpenSSH.)
describe('SshChannel faults (in-process SSH server)', () => {
  let server: FakeSshServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  async function sendTo(
    options: { behaviour?: ExecBehaviour; rejectExec?: boolean; rejectAuth?: boolean },
    args: Record<string, string> = { word: 'x' },
  ) {
    server = await startFakeSshServer(options);
    const contract = sshContract(
      { host: '127.0.0.1', port: server.port, user: 'deploy', hostKey: server.hostKey, dir: '/var/lib/onceport' },
      { argv: ['/usr/local/bin/migrate', '--to', '{word}'], properties: { word: { type: 'string' } } },
    );
    return new SshChannel().send({ contract, executionId: newExecutionId(), arguments: args, credential: server.clientPrivateKey });
  }

  it('sends only the fixed exec request; the argv travels quoted inside the program on stdin', async () => {
    const outcome = await sendTo(
      {
        behaviour: (stream) => {
          stream.write('onceport-marker started\nonceport-marker state completed\nonceport-marker exit 0\n');
          stream.write('onceport-marker stdout 2 2\nok');
          stream.write('onceport-marker stderr 0 0\nonceport-marker end\n');
          stream.exit(0);
          stream.end();
        },
      },
      { word: "it's; $(rm -rf /)" },
    );
    expect(outcome).toMatchObject({ kind: 'observed', exitStatus: 0 });
    expect(server?.execs).toHaveLength(1);
    expect(server?.execs[0]?.command).toBe(REMOTE_COMMAND);
    const stdin = server?.execs[0]?.stdin.toString() ?? '';
    expect(stdin).toContain(`set -- '/usr/local/bin/migrate' '--to' 'it'\\''s; $(rm -rf /)'`);
    expect(stdin.startsWith('onceport_main() {\n')).toBe(true);
    expect(stdin.endsWith('}\nonceport_main\n')).toBe(true);
  });

  it('a refused exec request is a failure before send (nothing reached a shell)', async () => {
    expect(await sendTo({ rejectExec: true })).toMatchObject({ kind: 'failed_before_send', code: 'exec_refused', retryable: true });
  });

  it('a refused key is a failure before send, not retried', async () => {
    expect(await sendTo({ rejectAuth: true })).toMatchObject({ kind: 'failed_before_send', code: 'auth_failed', retryable: false });
  });

  it('a connection dropped right after the program arrived is unknown', async () => {
    expect(await sendTo({ behaviour: (_stream, _stdin, destroy) => destroy() })).toMatchObject({
      kind: 'unknown',
      code: 'connection_lost',
    });
  });

  it('a connection dropped after "started" is unknown, and says the command started', async () => {
    const outcome = await sendTo({
      behaviour: (stream, _stdin, destroy) => {
        stream.write('onceport-marker started\n');
        setTimeout(destroy, 50);
      },
    });
    expect(outcome).toMatchObject({ kind: 'unknown', code: 'connection_lost' });
    expect((outcome as { reason: string }).reason).toMatch(/after the command started/);
  });

  it('a report cut short (no "end", or fewer output bytes than announced) is unknown, never observed', async () => {
    const cut = await sendTo({
      behaviour: (stream) => {
        stream.write(
          'onceport-marker started\nonceport-marker state completed\nonceport-marker exit 0\nonceport-marker stdout 10 10\nshort',
        );
        stream.exit(0);
        stream.end();
      },
    });
    expect(cut).toMatchObject({ kind: 'unknown', code: 'no_report' });
  });

  it('the host refusing a second start is unknown (an earlier attempt ran it), not a failure', async () => {
    const outcome = await sendTo({
      behaviour: (stream) => {
        stream.write('onceport-marker refused already-started\n');
        stream.exit(0);
        stream.end();
      },
    });
    expect(outcome).toMatchObject({ kind: 'unknown', code: 'already_started' });
  });
});
