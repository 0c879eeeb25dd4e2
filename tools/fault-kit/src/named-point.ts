import { FaultKitError } from './errors';
import { FAULT_ACTION_ENV, FAULT_POINT_ENV, type FaultAction } from './fault-point';
import type { ControlledProcess, ExitInfo } from './process/controlled-process';
import { processState, waitForStopped } from './process/proc-state';

export interface NamedPointHit {
  readonly name: string;
  readonly pid: number;
  /**
   * True: parked there by SIGSTOP (`ONCEPORT_FAULT_ACTION=stop`), waiting for the harness. False: it
   * already died there on its own (the `kill` action).
   */
  readonly stopped: boolean;
}

/** The harness side of `faultPoint`: arm a process with `env`, then wait for it to reach the point. */
export interface NamedPoint {
  readonly name: string;
  /** Spread into the process's env: `{ ONCEPORT_FAULT_POINT: name, ONCEPORT_FAULT_ACTION: action }`. */
  readonly env: Readonly<Record<string, string>>;
  /** Resolves once the process printed the point's line and is stopped (or dead) there. */
  reached(process: ControlledProcess, timeoutMs?: number): Promise<NamedPointHit>;
  /** `reached`, then SIGKILL (or `signal`): the process dies at exactly this point. */
  killWhenReached(process: ControlledProcess, signal?: NodeJS.Signals, timeoutMs?: number): Promise<ExitInfo>;
}

const MARK = '{"fault_point":';

/**
 * "Kill at a named point": start the app under test with `point.env`, let it run into
 * `faultPoint(name)`, and kill it there. `action` `stop` (the default) parks it there for the harness;
 * `kill` makes it die on its own. Both print `{"fault_point":"<name>","pid":<pid>}` on stderr first,
 * so `reached` works with either.
 * @example
 * const point = atNamedPoint('dispatcher.after_dispatch_started');
 * const app = await ControlledProcess.start({ command, args, env: point.env, ready });
 * await point.killWhenReached(app);
 */
export function atNamedPoint(name: string, action: FaultAction = 'stop'): NamedPoint {
  const reached = async (process: ControlledProcess, timeoutMs = 15_000): Promise<NamedPointHit> => {
    const line = await process.waitForOutput(`${MARK}${JSON.stringify(name)},`, timeoutMs);
    const { pid } = JSON.parse(line.slice(line.indexOf(MARK))) as { pid: number };
    if (await waitForStopped(pid, true)) return { name, pid, stopped: true };
    const state = processState(pid);
    if (state === null || state === 'Z' || state === 'X') return { name, pid, stopped: false };
    throw new FaultKitError('not_ready', `${process.name} announced fault point ${name} but pid ${pid} neither stopped nor died`);
  };
  return {
    name,
    env: { [FAULT_POINT_ENV]: name, [FAULT_ACTION_ENV]: action },
    reached,
    killWhenReached: async (process, signal = 'SIGKILL', timeoutMs) => {
      const hit = await reached(process, timeoutMs);
      return hit.stopped ? process.kill(signal) : process.waitForExit();
    },
  };
}
