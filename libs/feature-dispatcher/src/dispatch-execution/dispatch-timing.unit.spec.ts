import { parseToolContracts } from '@onceport/domain';
import { ackWaitMsFor, leaseMsFor } from './dispatch-timing';

const yaml = (timeout: string) => `
tools:
  - name: slow_tool
    description: A slow one.
    channel: http
    target: { origin: 'http://127.0.0.1:9', method: POST, path: /v1/payments, timeout: ${timeout} }
    arguments: { type: object, properties: {} }
    effect: irreversible
`;
const sshYaml = `
tools:
  - name: migrate
    description: A long one.
    channel: ssh
    target: { host: db1.internal, user: deploy, host_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINiQYR0hZkkIog77eYrhqR082f1DhamzL5mmvGR62VdA, argv: [/usr/local/bin/migrate], timeout: 10m }
    credential_ref: ssh-deploy
    arguments: { type: object, properties: {} }
    effect: remote_command
`;
const contract = (timeout: string) => {
  const [parsed] = parseToolContracts(yaml(timeout), 'slow.yaml');
  if (!parsed) throw new Error('no contract');
  return parsed;
};

describe('dispatch timing', () => {
  it('uses the configured lease unless the contract may take longer than it', () => {
    expect(leaseMsFor(contract('15s'), 60_000)).toBe(60_000);
    expect(leaseMsFor(contract('2m'), 60_000)).toBe(125_000);
    expect(leaseMsFor(undefined, 60_000)).toBe(60_000);
  });

  it('waits for an ack longer than the slowest HTTP contract', () => {
    expect(ackWaitMsFor([contract('15s'), contract('45s')])).toBe(75_000);
  });

  it('stretches the lease and the ack wait for an SSH command that may run long', () => {
    const [ssh] = parseToolContracts(sshYaml, 'ssh.yaml');
    expect(leaseMsFor(ssh, 60_000)).toBe(605_000);
    expect(ackWaitMsFor([contract('15s'), ssh!])).toBe(630_000);
  });
});
