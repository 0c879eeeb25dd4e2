import { writeSync } from 'node:fs';

/** Arms one named fault point in a process. */
export const FAULT_POINT_ENV = 'ONCEPORT_FAULT_POINT';
/** What the armed point does: `kill` (the default) SIGKILLs the process, `stop` SIGSTOPs it. */
export const FAULT_ACTION_ENV = 'ONCEPORT_FAULT_ACTION';
export type FaultAction = 'kill' | 'stop';

/**
 * Named places where a crash hurts most (after an event is stored, before the reply; after the
 * request is sent, before the outcome is stored…). A process started with
 * `ONCEPORT_FAULT_POINT=<name>` writes `{"fault_point":"<name>","pid":<pid>}` to stderr the first
 * time it reaches that place, then SIGKILLs itself there — or, with `ONCEPORT_FAULT_ACTION=stop`,
 * SIGSTOPs itself so a harness can kill it, or SIGCONT it later (a process that "wakes up late").
 * Unset (always, in production), it costs a lookup.
 */
export function faultPoint(name: string): void {
  if (process.env[FAULT_POINT_ENV] !== name) return;
  // writeSync: the line must be out of this process before it stops or dies, whatever stderr is.
  writeSync(2, `${JSON.stringify({ fault_point: name, pid: process.pid })}\n`);
  process.kill(process.pid, process.env[FAULT_ACTION_ENV] === 'stop' ? 'SIGSTOP' : 'SIGKILL');
}

/** The fault points services declare, for people and tests to pick from. */
export const FAULT_POINTS = {
  intakeAfterAccept: 'intake.after_accept',
  dispatcherAfterDispatchStarted: 'dispatcher.after_dispatch_started',
  dispatcherAfterSend: 'dispatcher.after_send',
  consumerBeforeAck: (durable: string) => `consumer.${durable}.before_ack`,
} as const;
