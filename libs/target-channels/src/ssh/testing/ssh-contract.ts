import { type SshToolContract, parseToolContracts } from '@onceport/domain';
import { stringify } from 'yaml';
import type { TestSshd } from './test-sshd';

/** Where the contract points: a real test sshd, or a scripted in-process server. */
export type SshEndpoint = Pick<TestSshd, 'host' | 'port' | 'user' | 'hostKey' | 'dir'>;

export interface SshContractOptions {
  readonly name?: string;
  readonly argv: readonly string[];
  /** JSON Schema properties; every one is required and an identity argument. */
  readonly properties?: Record<string, Record<string, unknown>>;
  readonly allowDashArguments?: readonly string[];
  readonly timeout?: string;
  readonly maxOutputBytes?: number;
  readonly markers?: boolean;
  /** Defaults to `<server dir>/markers`. */
  readonly markerDir?: string;
  /** Defaults to the server's own key; give another to test a mismatch. */
  readonly hostKey?: string;
  /** Pin through a known_hosts line instead of host_key. */
  readonly knownHosts?: string;
  /** Defaults to the server's port (e.g. a cut proxy's port instead). */
  readonly port?: number;
  readonly credentialRef?: string;
  readonly effect?: string;
}

/** The contract's YAML tool entry for a command on the test server. */
export function sshToolEntry(sshd: SshEndpoint, options: SshContractOptions): Record<string, unknown> {
  const properties = options.properties ?? {};
  return {
    name: options.name ?? 'run_on_test_host',
    description: 'Runs a command on the test SSH server.',
    channel: 'ssh',
    target: {
      host: sshd.host,
      port: options.port ?? sshd.port,
      user: sshd.user,
      ...(options.knownHosts ? { known_hosts: options.knownHosts } : { host_key: options.hostKey ?? sshd.hostKey }),
      argv: options.argv,
      marker_dir: options.markerDir ?? `${sshd.dir}/markers`,
      ...(options.allowDashArguments ? { allow_dash_arguments: options.allowDashArguments } : {}),
      ...(options.timeout ? { timeout: options.timeout } : {}),
      ...(options.maxOutputBytes ? { max_output_bytes: options.maxOutputBytes } : {}),
      ...(options.markers === false ? { markers: false } : {}),
    },
    credential_ref: options.credentialRef ?? 'test-ssh-key',
    arguments: { type: 'object', properties, required: Object.keys(properties) },
    roles: Object.fromEntries(Object.keys(properties).map((name) => [name, 'identity'])),
    effect: options.effect ?? 'remote_command',
  };
}

/** The same entry, parsed by the real contract loader. */
export function sshContract(sshd: SshEndpoint, options: SshContractOptions): SshToolContract {
  const [contract] = parseToolContracts(stringify({ tools: [sshToolEntry(sshd, options)] }), 'test-ssh.yaml');
  if (contract?.channel !== 'ssh') throw new Error('the test contract did not parse as an SSH tool');
  return contract;
}
