import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CONSOLE_PATHS } from './console-paths';
import { EX_SOFTWARE, StartFailure } from '../start-failure';

/** The newest modification time of the files under `dir`, in ms. */
function newestMtime(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((newest, entry) => Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

/** Built, and not older than any of the page's sources (a `git pull` that changed a page rebuilds it). */
export function consoleAssetsFresh(assetsDir: string, webSources = CONSOLE_PATHS.webSources): boolean {
  const built = join(assetsDir, 'app.js');
  if (!existsSync(join(assetsDir, 'index.html')) || !existsSync(built)) return false;
  return statSync(built).mtimeMs >= newestMtime(webSources);
}

/**
 * The console's front end in `assetsDir` (the data directory's, so two starts never rebuild each
 * other's): built by the console's own esbuild script when missing or stale — about a second, and
 * only the first start after a change pays it. Resolves with whether it built.
 */
export async function ensureConsoleAssets(assetsDir: string): Promise<boolean> {
  if (consoleAssetsFresh(assetsDir)) return false;
  // The same loader this process runs under (npm start: @swc-node/register) runs the build script.
  const args = [...process.execArgv, CONSOLE_PATHS.buildWeb, assetsDir];
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, args, { timeout: 120_000, maxBuffer: 1024 * 1024 }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      reject(
        new StartFailure(
          `the console's front end could not be built into ${assetsDir}: ${(stderr || error.message).trim().slice(-2000)}`,
          'check that npm ci completed (esbuild, preact); the gateway itself needs neither',
          EX_SOFTWARE,
        ),
      );
    }),
  );
  return true;
}
