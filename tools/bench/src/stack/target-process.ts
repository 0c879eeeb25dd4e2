import { join } from 'node:path';
import { ControlledProcess } from '@onceport/fault-kit';

export const WORKSPACE_ROOT = join(__dirname, '../../../..');

export interface TargetProcess {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** The test target (libs/test-target) as its own process: it counts every effect it receives. */
export async function startTargetProcess(): Promise<TargetProcess> {
  const child = await ControlledProcess.start({
    name: 'test-target',
    command: process.execPath,
    args: ['-r', '@swc-node/register', join(WORKSPACE_ROOT, 'libs/test-target/src/main.ts'), '--port', '0'],
    cwd: WORKSPACE_ROOT,
    env: { SWC_NODE_PROJECT: join(WORKSPACE_ROOT, 'tsconfig.base.json') },
    ready: { logLine: 'test-target listening on' },
    readyTimeoutMs: 60_000,
  });
  const line = await child.waitForOutput(/test-target listening on (\S+)/);
  const url = /listening on (\S+)/.exec(line)?.[1];
  if (!url || child.pid === null) throw new Error(`test-target did not say where it listens: ${line}`);
  return { url, pid: child.pid, stop: async () => void (await child.stop()) };
}
