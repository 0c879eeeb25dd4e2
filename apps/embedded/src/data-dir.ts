import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { StartFailure } from './start-failure';

/**
 * Where `npm start` keeps its state when ONCEPORT_DATA_DIR does not say: the user's state
 * directory (XDG Base Directory: `$XDG_STATE_HOME`, else `~/.local/state`), never a shared `/tmp`
 * path another local user could create first.
 */
export function defaultDataDir(env: Readonly<Record<string, string | undefined>>): string {
  const xdg = env['XDG_STATE_HOME'];
  // The spec ignores a relative XDG_STATE_HOME.
  const stateHome = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'state');
  return join(stateHome, 'onceport');
}

/**
 * Makes `dir` (and missing parents) private to this user: created 0700; an existing empty one is
 * tightened to 0700; an existing non-empty one that others can read, or one that belongs to
 * another user, is refused rather than silently changed (it may not be ours).
 */
export function preparePrivateDir(dir: string, variable: string): string {
  const path = resolve(dir);
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new StartFailure(
      `the data directory ${path} cannot be created (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      `set ${variable} to a directory you can write`,
    );
  }
  const stat = statSync(path);
  if (!stat.isDirectory()) throw new StartFailure(`the data directory ${path} is not a directory`, `set ${variable} to a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new StartFailure(
      `the data directory ${path} belongs to uid ${stat.uid}, not to you (uid ${uid})`,
      `set ${variable} to a directory of your own`,
    );
  }
  if ((stat.mode & 0o077) !== 0) {
    if (readdirSync(path).length > 0) {
      const mode = (stat.mode & 0o777).toString(8);
      throw new StartFailure(
        `the data directory ${path} is readable by others (mode ${mode}); it holds the database password and key hashes`,
        `chmod 700 ${path}, or set ${variable} to a private directory`,
      );
    }
    chmodSync(path, 0o700);
  }
  return path;
}

/** Secrets and key hashes: 0600, also when the file existed with a wider mode (older versions wrote 0644). */
export function writePrivateFile(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** True when group or others may read the file: a warning for the user's own key-hash files. */
export function readableByOthers(path: string): boolean {
  return (statSync(path).mode & 0o044) !== 0;
}
