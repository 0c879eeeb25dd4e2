import { SshChannel } from './ssh-channel';
import { type TestSshd, installRecordRun, newExecutionId, runsOf, sshContract, startTestSshd } from '../testing';

// The pin works whatever key type the host uses and however the operator wrote it.
describe.each(['rsa', 'ecdsa'] as const)('a host with an %s host key (real OpenSSH server)', (hostKeyType) => {
  let sshd: TestSshd;
  let recordRun: string;
  const ssh = new SshChannel();

  beforeAll(async () => {
    sshd = await startTestSshd({ hostKeyType });
    recordRun = installRecordRun(sshd.dir);
  });
  afterAll(() => sshd?.stop());

  it('is reached when pinned by host_key or by a known_hosts line', async () => {
    const byKey = sshContract(sshd, { argv: [recordRun, 'pinned', '0', '0'] });
    const byKnownHosts = sshContract(sshd, { argv: [recordRun, 'pinned', '0', '0'], knownHosts: sshd.knownHostsLine });
    expect(byKnownHosts.target.hostKey).toEqual(byKey.target.hostKey);
    for (const contract of [byKey, byKnownHosts]) {
      expect(await ssh.send({ contract, executionId: newExecutionId(), arguments: {}, credential: sshd.clientPrivateKey })).toMatchObject({
        kind: 'observed',
        exitStatus: 0,
      });
    }
    expect(runsOf(sshd.dir, 'pinned')).toBe(2);
  });

  it('is refused when the contract pins an ed25519 key instead (0 runs)', async () => {
    const contract = sshContract(sshd, {
      argv: [recordRun, 'other-type', '0', '0'],
      hostKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINiQYR0hZkkIog77eYrhqR082f1DhamzL5mmvGR62VdA',
    });
    expect(await ssh.send({ contract, executionId: newExecutionId(), arguments: {}, credential: sshd.clientPrivateKey })).toMatchObject({
      kind: 'failed_before_send',
      code: 'host_key_mismatch',
      retryable: false,
    });
    expect(runsOf(sshd.dir, 'other-type')).toBe(0);
  });
});
