import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureSshdInstalled } from './install-sshd';

export interface TestSshd {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The user the tests log in as: whoever runs them (root in CI). */
  readonly user: string;
  /** `ssh-ed25519 AAAA…`, as a contract pins it. */
  readonly hostKey: string;
  /** A known_hosts line for `[127.0.0.1]:<port>`. */
  readonly knownHostsLine: string;
  /** OpenSSH private key text of the authorised client key (the credential). */
  readonly clientPrivateKey: string;
  /** A private directory for markers, scripts and run counts. */
  readonly dir: string;
  /** What sshd logged (with -e), for failing tests to show. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts a real OpenSSH server on a free loopback port with its own host key and one authorised
 * client key, both generated for this server (installing openssh-server first if needed).
 *
 * @example const sshd = await startTestSshd(); … await sshd.stop();
 */
export async function startTestSshd(options: { hostKeyType?: 'ed25519' | 'rsa' | 'ecdsa' } = {}): Promise<TestSshd> {
  const sshd = ensureSshdInstalled();
  const dir = mkdtempSync(join(tmpdir(), 'onceport-sshd-'));
  chmodSync(dir, 0o755);
  keygen(join(dir, 'host_key'), options.hostKeyType ?? 'ed25519');
  keygen(join(dir, 'client_ed25519'), 'ed25519');
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_ed25519.pub')));
  // Privilege separation wants this directory when sshd runs as root.
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  const port = await freePort();
  const user = userInfo().username;
  const config = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${join(dir, 'host_key')}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    'StrictModes no',
    'UsePAM no',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PubkeyAuthentication yes',
    'PermitRootLogin prohibit-password',
    `AllowUsers ${user}`,
    // Property tests open many sessions back to back; the default would drop some at random.
    'MaxStartups 200:30:400',
    'MaxSessions 100',
    'LogLevel INFO',
  ].join('\n');
  writeFileSync(join(dir, 'sshd_config'), `${config}\n`);

  let output = '';
  const child: ChildProcess = spawn(sshd, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitForBanner(port, child, () => output);

  const hostKey = readFileSync(join(dir, 'host_key.pub'), 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
  return {
    host: '127.0.0.1',
    port,
    user,
    hostKey,
    knownHostsLine: `[127.0.0.1]:${port} ${hostKey}`,
    clientPrivateKey: readFileSync(join(dir, 'client_ed25519'), 'utf8'),
    dir,
    log: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function keygen(path: string, type: 'ed25519' | 'rsa' | 'ecdsa'): void {
  const size = type === 'rsa' ? ['-b', '3072'] : [];
  execFileSync('ssh-keygen', ['-q', '-t', type, ...size, '-N', '', '-C', 'onceport-test', '-f', path], { stdio: 'ignore' });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** Ready means the server sends its SSH banner, not merely that the port is bound. */
async function waitForBanner(port: number, child: ChildProcess, log: () => string): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if (child.exitCode !== null) throw new Error(`sshd exited with ${child.exitCode}: ${log()}`);
    if (await hasBanner(port)) return;
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`sshd did not answer on 127.0.0.1:${port}: ${log()}`);
}

function hasBanner(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('data', (chunk: Buffer) => done(chunk.toString('latin1').startsWith('SSH-')));
    socket.once('error', () => done(false));
  });
}
