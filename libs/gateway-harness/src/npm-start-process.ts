import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '@onceport/messaging/testing';

export { freePort };

/** The repository root (this file is libs/gateway-harness/src/…), where `npm start` runs. */
const ROOT = join(__dirname, '../../..');

/** One `npm start` as a person runs it, in its own process group, with everything it printed. */
export interface NpmStart {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (null when ended by a signal). */
  readonly exited: Promise<number | null>;
  /** The URL from the `listening` line; rejects with the output if the start exits first. */
  readonly listening: Promise<string>;
  /** SIGTERM to the whole group, and wait for the exit. */
  stop(): Promise<void>;
}

/** `npm start` with `env`; the console on a free port unless `env` names one (tests never take the fixed 3005). */
export function spawnNpmStart(env: Record<string, string>, timeoutMs = 150_000): NpmStart {
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, ONCEPORT_CONSOLE_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output}`)), timeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      output += `${line}\n`;
      if (line.startsWith('{"service":"onceport"')) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
  });
  listening.catch(() => undefined); // observed by the tests that expect a start
  return {
    child,
    output: () => output,
    exited,
    listening,
    async stop() {
      if (child.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGTERM');
      await exited;
    },
  };
}

/** A line of the banner: `  <label>   <value>`. */
export function bannerValue(output: string, label: string): string {
  return new RegExp(`^\\s+${label}\\s+(\\S+)`, 'm').exec(output)?.[1] ?? '';
}

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
