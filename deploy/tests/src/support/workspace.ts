import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const WORKSPACE_ROOT = join(__dirname, '../../../..');

/** The four services; the reconciler counts once `apps/reconciler` exists (it is built in parallel). */
export const ALL_APPS = ['intake', 'authorization', 'dispatcher', 'reconciler'] as const;
export type AppName = (typeof ALL_APPS)[number];
/** The web console: deployed and built into an image like the services, but no database, broker or actors file of its own. */
export const CONSOLE_APP = 'console' as const;
/** What the manifests deploy and the Dockerfile builds: the services and the console. */
export const DEPLOYED_APPS = [...ALL_APPS, CONSOLE_APP] as const;

export function presentApps(): AppName[] {
  return ALL_APPS.filter((app) => existsSync(join(WORKSPACE_ROOT, 'apps', app, 'src', 'main.ts')));
}

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end; a non-zero exit is a result, not an exception. */
export function run(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd ?? WORKSPACE_ROOT,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

/** `tools/build/cli.ts`, as the Dockerfile's build stage runs it. */
export function buildApps(apps: readonly string[], outRoot: string): Promise<RunResult> {
  return run(process.execPath, ['-r', '@swc-node/register', 'tools/build/cli.ts', ...apps, '--out-root', outRoot], {
    env: { ...process.env, SWC_NODE_PROJECT: 'tsconfig.base.json' },
  });
}
