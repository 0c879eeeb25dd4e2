import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FaultKitError } from '../errors';

const DEBIAN_ROOT = '/usr/lib/postgresql';

/**
 * The bin dir of the newest PostgreSQL under /usr/lib/postgresql/<version>/bin that has initdb, or
 * `ONCEPORT_PG_BIN_DIR` when set.
 */
export function findPostgresBinDir(): string {
  const override = process.env['ONCEPORT_PG_BIN_DIR'];
  if (override) return override;
  const versions = existsSync(DEBIAN_ROOT) ? readdirSync(DEBIAN_ROOT).filter((name) => /^\d+(\.\d+)?$/.test(name)) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  const found = versions.map((version) => join(DEBIAN_ROOT, version, 'bin')).find((dir) => existsSync(join(dir, 'initdb')));
  if (!found) {
    throw new FaultKitError(
      'binary_missing',
      `no PostgreSQL server binaries under ${DEBIAN_ROOT}/<version>/bin (install postgresql, or set ONCEPORT_PG_BIN_DIR)`,
    );
  }
  return found;
}

/** uid and gid of the `postgres` OS user, from /etc/passwd. */
export function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined)
    throw new FaultKitError('binary_missing', 'there is no postgres OS user to run the cluster as');
  return { uid: Number(uid), gid: Number(gid) };
}

/** PostgreSQL refuses to run as root: as root, tools run as `postgres` through runuser. */
export function runsAsRoot(): boolean {
  return process.getuid?.() === 0;
}

export function pgCommand(binDir: string, tool: string, args: readonly string[]): { command: string; args: string[] } {
  const binary = join(binDir, tool);
  return runsAsRoot() ? { command: 'runuser', args: ['-u', 'postgres', '--', binary, ...args] } : { command: binary, args: [...args] };
}

/** Runs a PostgreSQL tool to completion; `command_failed` carries its output. */
export async function runPgTool(binDir: string, tool: string, args: readonly string[], timeoutMs = 60_000): Promise<string> {
  const { command, args: fullArgs } = pgCommand(binDir, tool, args);
  return new Promise((resolve, reject) => {
    // cwd /tmp: runuser keeps root's cwd, which the postgres user may not be allowed to enter.
    execFile(command, fullArgs, { cwd: '/tmp', timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new FaultKitError('command_failed', `${tool} ${args.join(' ')} failed: ${error.message}\n${stdout}${stderr}`));
      else resolve(`${stdout}${stderr}`);
    });
  });
}
