import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** The port it reported listening on. */
  readonly port: number;
  output(): string;
  /** Sends the signal and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

/** Starts `node <args>` with exactly `env` and waits for its `{"event":"listening"}` line. */
export async function startService(args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const { stdout } = child;
  if (!stdout) throw new Error('no stdout pipe');
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${output}`));
    });
    createInterface({ input: stdout }).on('line', (line) => {
      output += `${line}\n`;
      if (!line.startsWith('{')) return;
      const parsed = JSON.parse(line) as { event?: string; port?: number };
      if (parsed.event === 'listening' && parsed.port) {
        clearTimeout(timer);
        resolve(parsed.port);
      }
    });
  });
  return {
    child,
    port,
    output: () => output,
    async stop(signal = 'SIGTERM', stopTimeoutMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
