import type { ChildProcess } from 'node:child_process';
import { FaultKitError } from '../errors';
import { waitForPort } from '../net/ports';
import { type ExitInfo, mergeEnv, spawnRun } from './child-run';
import { OutputLog } from './output-log';
import { waitForStopped } from './proc-state';

export type { ExitInfo } from './child-run';

/** When a started process counts as up: a line of its output, or a TCP port accepting connections. */
export type Readiness = { readonly logLine: RegExp | string } | { readonly port: number; readonly host?: string };

export interface ControlledProcessOptions {
  readonly command: string;
  readonly args?: readonly string[];
  /** Merged over the parent's environment (`undefined` removes a variable), unless `inheritEnv` is false. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly inheritEnv?: boolean;
  readonly cwd?: string;
  readonly ready?: Readiness;
  readonly readyTimeoutMs?: number;
  /** Used in messages and echoed lines; default: the command's base name. */
  readonly name?: string;
  /** Its own process group, and every signal goes to the group: for `sh -c`, `npm run` and the like. */
  readonly processGroup?: boolean;
  /** Copies each output line to this process's stderr, prefixed with the name (for the CLI). */
  readonly echo?: boolean;
}

export interface StopOptions {
  /** First signal; default SIGTERM. */
  readonly signal?: NodeJS.Signals;
  /** How long to wait before SIGKILL; default 5000 ms. */
  readonly graceMs?: number;
}

/**
 * A child process a test can start, wait for, SIGKILL, SIGSTOP/SIGCONT and restart, with its output
 * captured per run. Anything still running when the parent exits is SIGKILLed.
 * @example
 * const app = await ControlledProcess.start({ command: 'node', args: ['app.js'], ready: { port: 3000 } });
 * await app.pause(); await app.resume(); await app.kill('SIGKILL'); await app.restart();
 */
export class ControlledProcess {
  private child: ChildProcess | null = null;
  private log = new OutputLog();
  private exited: Promise<ExitInfo> = Promise.resolve({ code: null, signal: null });
  private lastExit: ExitInfo | null = null;
  private stopped = false;
  readonly name: string;

  private constructor(private readonly options: ControlledProcessOptions) {
    this.name = options.name ?? options.command.split('/').pop() ?? options.command;
  }

  /** Spawns it and waits for `ready` (if given); on failure the process is killed and the error names why. */
  static async start(options: ControlledProcessOptions): Promise<ControlledProcess> {
    const controlled = new ControlledProcess(options);
    await controlled.spawnAndWait();
    return controlled;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  get running(): boolean {
    return this.child !== null;
  }

  /** True between `pause()` and `resume()`. */
  get paused(): boolean {
    return this.stopped;
  }

  /** Combined stdout and stderr of the current run (the last MiB). */
  output(stream?: 'stdout' | 'stderr'): string {
    return this.log.text(stream);
  }

  /** How the previous run ended, `null` if none has. */
  exitInfo(): ExitInfo | null {
    return this.lastExit;
  }

  /** The first line of this run's output matching `pattern`, already printed or still to come. */
  async waitForOutput(pattern: RegExp | string, timeoutMs = 10_000): Promise<string> {
    return this.log.waitForLine(pattern, timeoutMs, this.name);
  }

  /** Writes to the child's stdin. */
  write(text: string): void {
    this.child?.stdin?.write(text);
  }

  /** Sends a signal and returns at once (to the group with `processGroup`). */
  signal(signal: NodeJS.Signals): void {
    const pid = this.requirePid();
    process.kill(this.options.processGroup ? -pid : pid, signal);
  }

  private requirePid(): number {
    const pid = this.pid;
    if (pid === null) throw new FaultKitError('not_running', `${this.name} is not running`);
    return pid;
  }

  /**
   * Sends `signal` (default SIGKILL) and waits for the exit. Any other signal is followed by a
   * SIGCONT, so a stopped process (paused, or parked at a fault point) receives it.
   */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<ExitInfo> {
    if (!this.child) return this.lastExit ?? { code: null, signal: null };
    const exited = this.exited;
    try {
      this.signal(signal);
      if (signal !== 'SIGKILL') this.signal('SIGCONT');
    } catch (error: unknown) {
      // ESRCH: it died on its own an instant ago and its exit is on the way; anything else is real.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
    return exited;
  }

  /** SIGSTOP, and waits until the kernel reports it stopped. */
  async pause(): Promise<void> {
    const pid = this.requirePid();
    this.signal('SIGSTOP');
    this.stopped = true;
    await waitForStopped(pid, true);
  }

  /** SIGCONT, and waits until it runs again. */
  async resume(): Promise<void> {
    const pid = this.requirePid();
    this.signal('SIGCONT');
    this.stopped = false;
    await waitForStopped(pid, false);
  }

  /** `signal` (SIGTERM), then SIGKILL after `graceMs`; nothing if it is not running. */
  async stop(options: StopOptions = {}): Promise<ExitInfo | null> {
    if (!this.child) return null;
    const exited = this.exited;
    const timer = setTimeout(() => this.child && this.signal('SIGKILL'), options.graceMs ?? 5_000);
    try {
      return await this.kill(options.signal ?? 'SIGTERM');
    } finally {
      clearTimeout(timer);
      await exited;
    }
  }

  /** Stops it if running (see `stop`), then starts it again with the same options and waits for ready. */
  async restart(options: StopOptions = {}): Promise<void> {
    await this.stop(options);
    await this.spawnAndWait();
  }

  /** Resolves with the exit of the current run; rejects with `timeout` after `timeoutMs`. */
  async waitForExit(timeoutMs = 30_000): Promise<ExitInfo> {
    if (!this.child) return this.lastExit ?? { code: null, signal: null };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FaultKitError('timeout', `${this.name} did not exit within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async spawnAndWait(): Promise<void> {
    if (this.child) throw new FaultKitError('already_running', `${this.name} is already running`);
    const { command, args = [], cwd, processGroup = false, echo = false } = this.options;
    const env = mergeEnv(this.options.env, this.options.inheritEnv !== false);
    const run = spawnRun({ name: this.name, command, args, cwd, env, processGroup, echo });
    const { child } = run;
    this.log = run.log;
    this.child = child;
    this.stopped = false;
    this.exited = run.exited.then((info) => {
      if (this.child === child) {
        this.child = null;
        this.stopped = false;
        this.lastExit = info;
      }
      return info;
    });
    await this.waitUntilReady(child);
  }

  private async waitUntilReady(child: ChildProcess): Promise<void> {
    const { ready, readyTimeoutMs = 15_000 } = this.options;
    try {
      if (!child.pid) {
        await this.exited;
        throw new FaultKitError('binary_missing', `${this.name}: could not start ${this.options.command}`);
      }
      if (!ready) return;
      if ('logLine' in ready) await this.log.waitForLine(ready.logLine, readyTimeoutMs, `${this.name} readiness`);
      else {
        const giveUp = () => (this.child === child ? null : `${this.name} exited before listening on ${ready.port}:\n${this.log.tail()}`);
        await waitForPort(ready.port, { host: ready.host, timeoutMs: readyTimeoutMs, giveUp });
      }
    } catch (error: unknown) {
      if (this.child === child) await this.kill('SIGKILL');
      throw error;
    }
  }
}
