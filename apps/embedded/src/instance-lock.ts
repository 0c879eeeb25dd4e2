import { openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { commandLine, isRunning, workingDirectory } from './process-facts';
import { StartFailure } from './start-failure';

export interface InstanceLock {
  readonly file: string;
  release(): void;
}

/**
 * One `npm start` per data directory: `onceport.pid` names the process that owns it. A file left
 * by a process that is gone (a `kill -9`) is stale and taken over; one whose process still runs
 * this same program is another start, refused — so a restart never stops a PostgreSQL that a
 * live gateway is using.
 */
export function claimDataDir(dataDir: string, log: (line: string) => void): InstanceLock {
  const file = join(dataDir, 'onceport.pid');
  const program = process.argv[1] ?? 'main.ts';
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n${program}\n`);
      closeSync(fd);
      return { file, release: () => rmSync(file, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const [pidText = '', owner = program] = readFileSync(file, 'utf8').split('\n');
    const pid = Number(pidText);
    if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && isRunning(pid) && runsProgram(pid, owner)) {
      throw new StartFailure(
        `another Onceport (pid ${pid}) is running on the data directory ${dataDir}`,
        `stop it first (kill ${pid}), or set ONCEPORT_DATA_DIR to another directory for a second gateway`,
      );
    }
    log(`onceport: ${file} names pid ${pidText || '?'}, which is gone: a stale lock from an earlier start, taken over`);
    rmSync(file, { force: true });
  }
  throw new StartFailure(
    `could not claim the data directory ${dataDir}: ${file} keeps reappearing`,
    'make sure only one npm start uses this ONCEPORT_DATA_DIR',
  );
}

/**
 * Whether a live pid (maybe reused since) still runs this program: /proc shows argv as typed,
 * often relative to the process's working directory. Unreadable counts as yes: refusing a start
 * is safer than stopping the PostgreSQL of a live gateway.
 */
function runsProgram(pid: number, program: string): boolean {
  const argv = commandLine(pid);
  if (argv === null) return true;
  const cwd = workingDirectory(pid) ?? '/';
  return argv.some((arg) => resolve(cwd, arg) === program);
}
