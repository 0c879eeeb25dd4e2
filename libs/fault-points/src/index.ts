/**
 * Named places where a crash hurts most (after an event is stored, before the reply; after the
 * request is sent, before the outcome is stored…). A process started with
 * `ONCEPORT_FAULT_POINT=<name>` kills itself with SIGKILL the first time it reaches that place, so
 * fault tests can crash a service exactly there. Unset (always, in production), it costs a lookup.
 */
export function faultPoint(name: string): void {
  if (process.env['ONCEPORT_FAULT_POINT'] !== name) return;
  process.stderr.write(`${JSON.stringify({ fault_point: name, pid: process.pid })}\n`);
  process.kill(process.pid, 'SIGKILL');
}

/** The fault points services declare, for people and tests to pick from. */
export const FAULT_POINTS = {
  intakeAfterAccept: 'intake.after_accept',
  dispatcherAfterDispatchStarted: 'dispatcher.after_dispatch_started',
  dispatcherAfterSend: 'dispatcher.after_send',
  consumerBeforeAck: (durable: string) => `consumer.${durable}.before_ack`,
} as const;
