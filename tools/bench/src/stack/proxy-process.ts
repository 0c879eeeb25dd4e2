import { join } from 'node:path';
import { ControlledProcess } from '@onceport/fault-kit';
import { WORKSPACE_ROOT } from './target-process';

export interface ProxyProcess {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** The pass-through MCP proxy baseline as its own process, like the apps and the target. */
export async function startProxyProcess(targetUrl: string): Promise<ProxyProcess> {
  const child = await ControlledProcess.start({
    name: 'pass-through-proxy',
    command: process.execPath,
    args: ['-r', '@swc-node/register', join(__dirname, '../baseline/proxy-main.ts'), targetUrl],
    cwd: WORKSPACE_ROOT,
    env: { SWC_NODE_PROJECT: join(WORKSPACE_ROOT, 'tsconfig.base.json') },
    ready: { logLine: 'pass-through proxy listening on' },
    readyTimeoutMs: 60_000,
  });
  const line = await child.waitForOutput(/listening on (\S+)/);
  const url = /listening on (\S+)/.exec(line)?.[1];
  if (!url || child.pid === null) throw new Error(`proxy did not say where it listens: ${line}`);
  return { url, pid: child.pid, stop: async () => void (await child.stop()) };
}
