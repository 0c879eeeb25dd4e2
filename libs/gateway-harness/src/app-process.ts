import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const WORKSPACE_ROOT = join(__dirname, '../../..');

export interface AppProcess {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM (graceful) and wait for exit; SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface AppProcessOptions {
  /** Default 60 s. */
  readonly timeoutMs?: number;
  /** Options for `node` itself, before the script (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
  readonly nodeArgs?: readonly string[];
}

/**
 * Starts `apps/<name>/src/main.ts` as its own process (through @swc-node/register, so tests run the
 * sources) on a free port and resolves once it reports listening.
 */
export async function startAppProcess(name: string, env: Record<string, string>, options: AppProcessOptions = {}): Promise<AppProcess> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const args = [...(options.nodeArgs ?? []), '-r', '@swc-node/register', join(WORKSPACE_ROOT, 'apps', name, 'src/main.ts')];
  const child = spawn(process.execPath, args, {
    cwd: WORKSPACE_ROOT,
    env: { ...process.env, PORT: '0', SWC_NODE_PROJECT: join(WORKSPACE_ROOT, 'tsconfig.base.json'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening:\n${output}`));
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      output += `${line}\n`;
      try {
        const parsed = JSON.parse(line) as { event?: string; port?: number };
        if (parsed.event === 'listening' && parsed.port) {
          clearTimeout(timer);
          resolve(parsed.port);
        }
      } catch {
        // not a JSON line: ordinary output
      }
    });
  });
  return handle(name, child, port, () => output);
}

function handle(name: string, child: ChildProcess, port: number, output: () => string): AppProcess {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? -1,
    output,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async kill(signal = 'SIGKILL') {
      if (child.exitCode !== null) return;
      child.kill(signal);
      if (signal === 'SIGKILL' || signal === 'SIGTERM') await exited;
    },
  };
}
