import { type ExecutionCommand } from './execution-command';
import { type DispatchedState, type DispatchedUnknownState, type KnownExecutionState } from './execution-state';
import { refuse, refuseTransition } from './guards';

type OpenAttemptState = DispatchedState | DispatchedUnknownState;
type OpenStatus = OpenAttemptState['status'];

/** The attempt a dispatched or unknown execution is waiting on. */
export function openAttempt(state: OpenAttemptState): number {
  return state.status === 'dispatched' ? state.lease.attempt : state.unknown.attempt;
}

/**
 * Narrows to a state whose open attempt is `attempt`, or refuses with the most useful code: a report
 * about an older attempt is stale; one about an attempt that already ended cannot overwrite its outcome.
 */
export function requireOpenAttempt<S extends OpenStatus>(
  command: ExecutionCommand,
  state: KnownExecutionState,
  attempt: number,
  statuses: readonly S[],
): Extract<OpenAttemptState, { status: S }> {
  if (isOpen(state, statuses) && openAttempt(state) === attempt) return state;
  const current = state.progress.attempt;
  if (attempt > current) return refuseTransition(command, state, `attempt ${attempt} was never started (current: ${current})`);
  if (attempt < current) return refuse('stale_attempt', command, state, `Attempt ${attempt} is over; the current attempt is ${current}.`);
  const ended = state.progress.lastAttemptEnd;
  if (ended !== null && ended.attempt === attempt) {
    return refuse(
      'outcome_already_known',
      command,
      state,
      `Attempt ${attempt} already ended (${ended.how === 'settled' ? `settled ${ended.settlement}` : ended.how}).`,
    );
  }
  return refuseTransition(command, state);
}

function isOpen<S extends OpenStatus>(
  state: KnownExecutionState,
  statuses: readonly S[],
): state is Extract<OpenAttemptState, { status: S }> {
  return (statuses as readonly string[]).includes(state.status);
}
