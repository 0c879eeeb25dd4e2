import { writeSync } from 'node:fs';

/** The environment variable that arms one named fault point in a process. */
export const FAULT_POINT_ENV = 'ONCEPORT_FAULT_POINT';

/**
 * Marks a place where a test may want this process to die ("after ExecutionAccepted is stored,
 * before the answer"). Does nothing unless `ONCEPORT_FAULT_POINT` equals `name`; then it writes
 * `{"fault_point":"<name>","pid":<pid>}` to stderr and SIGSTOPs its own process, so a harness
 * watching the output (see `atNamedPoint`) can SIGKILL it at exactly this point. If the harness
 * sends SIGCONT instead, the process carries on as if nothing happened.
 *
 * Services will call it from their code paths once `libs/runtime` re-exports it; it depends on
 * nothing but node:fs, so importing it costs nothing in production.
 * @example
 * await events.append(stream, [accepted]);
 * faultPoint('intake.after-accepted-stored');
 */
export function faultPoint(name: string): void {
  if (process.env[FAULT_POINT_ENV] !== name) return;
  // writeSync: the line must be out of this process before it stops, whatever stderr is.
  writeSync(2, `${JSON.stringify({ fault_point: name, pid: process.pid })}\n`);
  process.kill(process.pid, 'SIGSTOP');
}
