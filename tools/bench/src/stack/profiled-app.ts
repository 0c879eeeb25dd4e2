import { join } from 'node:path';
import { ControlledProcess } from '@onceport/fault-kit';
import type { AppProcess } from '@onceport/runtime/testing';
import { WORKSPACE_ROOT } from './target-process';

/**
 * Starts `apps/<name>` like startAppProcess does, but with `--cpu-prof` (not allowed in
 * NODE_OPTIONS): V8 writes the profile into `profileDir` when the process exits.
 */
export async function startProfiledApp(name: string, env: Record<string, string>, profileDir: string): Promise<AppProcess> {
  const child = await ControlledProcess.start({
    name,
    command: process.execPath,
    args: ['--cpu-prof', '--cpu-prof-dir', profileDir, '-r', '@swc-node/register', join(WORKSPACE_ROOT, 'apps', name, 'src/main.ts')],
    cwd: WORKSPACE_ROOT,
    env: { PORT: '0', SWC_NODE_PROJECT: join(WORKSPACE_ROOT, 'tsconfig.base.json'), ...env },
    ready: { logLine: '"event":"listening"' },
    readyTimeoutMs: 60_000,
  });
  const line = await child.waitForOutput(/"event":"listening"/);
  const port = (JSON.parse(line.slice(line.indexOf('{'))) as { port?: number }).port;
  if (!port || child.pid === null) throw new Error(`${name} did not say where it listens: ${line}`);
  const pid = child.pid;
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    pid,
    output: () => child.output(),
    async stop(graceMs = 15_000) {
      const exit = await child.stop({ graceMs });
      return exit?.code ?? null;
    },
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      await child.kill(signal);
    },
  };
}
