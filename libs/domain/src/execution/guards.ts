import { type ExecutionCommand } from './execution-command';
import { type ExecutionState, type KnownExecutionState } from './execution-state';
import { IllegalTransitionError, type IllegalTransitionCode } from './illegal-transition.error';

export function refuse(code: IllegalTransitionCode, command: ExecutionCommand, state: ExecutionState, message: string): never {
  throw new IllegalTransitionError(code, command.type, state.status, message);
}

export function refuseTransition(command: ExecutionCommand, state: ExecutionState, why = ''): never {
  return refuse(
    'illegal_transition',
    command,
    state,
    `${command.type} is not allowed while the execution is ${state.status}${why === '' ? '.' : `: ${why}`}`,
  );
}

export function requireAccepted(command: ExecutionCommand, state: ExecutionState): KnownExecutionState {
  if (state.status === 'none')
    return refuse('not_accepted', command, state, `${command.type} needs an accepted execution; this stream has none.`);
  return state;
}

export function requirePositive(command: ExecutionCommand, state: ExecutionState, name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0)
    refuse('invalid_command', command, state, `${command.type}: ${name} must be a positive number of milliseconds, got ${value}.`);
}

/** The command's `now`, as the ISO timestamp events carry. */
export function nowIso(command: ExecutionCommand): string {
  return command.metadata.now.toISOString();
}

export function plusMs(command: ExecutionCommand, ms: number): string {
  return new Date(command.metadata.now.getTime() + ms).toISOString();
}

/** True once `iso` has been reached: a deadline is over at its own instant. */
export function reached(command: ExecutionCommand, iso: string): boolean {
  return command.metadata.now.getTime() >= Date.parse(iso);
}
