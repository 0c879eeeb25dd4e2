import { type ChildProcess, spawn } from 'node:child_process';
import { FaultKitError } from '../errors';
import { trackLeftover, untrackLeftover } from './leftovers';
import { OutputLog } from './output-log';

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface SpawnSpec {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  readonly processGroup: boolean;
  readonly echo: boolean;
}

/** One run of a child: the process, its captured output, and its exit (output flushed). */
export interface ChildRun {
  readonly child: ChildProcess;
  readonly log: OutputLog;
  readonly exited: Promise<ExitInfo>;
}

export function spawnRun(spec: SpawnSpec): ChildRun {
  const log = new OutputLog();
  if (spec.echo) log.onLine = (_stream, line) => process.stderr.write(`[${spec.name}] ${line}\n`);
  const child = spawn(spec.command, [...spec.args], {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: spec.processGroup,
  });
  child.stdout?.on('data', (chunk: Buffer) => log.push('stdout', chunk));
  child.stderr?.on('data', (chunk: Buffer) => log.push('stderr', chunk));
  child.stdin?.on('error', () => undefined); // a child that exits before reading stdin is not our failure
  return { child, log, exited: watchExit(spec, child, log) };
}

async function watchExit(spec: SpawnSpec, child: ChildProcess, log: OutputLog): Promise<ExitInfo> {
  const pid = child.pid;
  const spawned = pid !== undefined;
  if (spawned) trackLeftover(child, () => killQuietly(spec.processGroup ? -pid : pid));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const info = await new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code: number | null, signal: NodeJS.Signals | null) => resolve({ code, signal }));
    // After a spawn, 'error' means a failed kill and 'exit' still comes; before it, nothing else will.
    child.on('error', (error: Error) => {
      if (!spawned) resolve({ code: null, signal: null });
      log.push('stderr', Buffer.from(`[fault-kit] ${error.message}\n`));
    });
  });
  untrackLeftover(child);
  // Output may trail the exit by a moment; do not wait forever for a grandchild holding the pipe.
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = await Promise.race([
    closed.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), 2_000))),
  ]);
  clearTimeout(timer);
  // The timer phase runs before the I/O poll in a loop turn: let one poll read what the pipe holds.
  if (gaveUp) await new Promise((resolve) => setImmediate(resolve));
  log.close(new FaultKitError('exited', `${spec.name} exited (code ${info.code}, signal ${info.signal}); last output:\n${log.tail()}`));
  return info;
}

/** The parent's environment with `overrides` on top (`undefined` removes a variable). */
export function mergeEnv(overrides: Readonly<Record<string, string | undefined>> = {}, inherit = true): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = inherit ? { ...process.env } : {};
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

function killQuietly(target: number): void {
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // Already gone: exactly what we wanted.
  }
}
