import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const SSHD_PATH = '/usr/sbin/sshd';

/**
 * Makes sure OpenSSH's server is there, installing Debian's `openssh-server` on a fresh machine.
 * Several test workers may ask at once: `flock` lets one install while the others wait for it.
 */
export function ensureSshdInstalled(): string {
  if (existsSync(SSHD_PATH)) return SSHD_PATH;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `${SSHD_PATH} is missing and installing it needs root: run "apt-get install -y openssh-server" once, then the tests again`,
    );
  }
  const install =
    'test -x /usr/sbin/sshd || apt-get install -y -q openssh-server || (apt-get update -q && apt-get install -y -q openssh-server)';
  execFileSync('flock', ['/tmp/onceport-openssh-install.lock', 'sh', '-c', install], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 600_000,
  });
  if (!existsSync(SSHD_PATH)) throw new Error(`installing openssh-server did not provide ${SSHD_PATH}`);
  return SSHD_PATH;
}
