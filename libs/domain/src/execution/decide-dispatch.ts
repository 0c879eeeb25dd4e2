import { type ExecutionEvent } from '@onceport/contracts';
import { type FailDispatchBeforeSend, type MarkOutcomeUnknown, type ObserveOutcome, type StartDispatch } from './execution-command';
import { type KnownExecutionState } from './execution-state';
import { nowIso, plusMs, refuseTransition, requirePositive } from './guards';
import { requireOpenAttempt } from './open-attempt';

/**
 * Only from `authorized`, and never a no-op: a redelivered authorization must not look like
 * permission to send again, so a second StartDispatch on a dispatched execution is refused.
 */
export function startDispatch(command: StartDispatch, state: KnownExecutionState): ExecutionEvent[] {
  if (state.status !== 'authorized') {
    const why = state.status === 'dispatched' ? `attempt ${state.lease.attempt} is in flight; it is never re-sent blindly` : '';
    return refuseTransition(command, state, why);
  }
  requirePositive(command, state, 'leaseMs', command.data.leaseMs);
  const attempt = state.progress.attempt + 1;
  return [
    {
      type: 'DispatchStarted',
      data: {
        executionId: state.facts.executionId,
        attempt,
        dispatcherId: command.data.dispatcherId,
        leaseExpiresAt: plusMs(command, command.data.leaseMs),
        startedAt: nowIso(command),
      },
    },
  ];
}

export function failDispatchBeforeSend(command: FailDispatchBeforeSend, state: KnownExecutionState): ExecutionEvent[] {
  const { attempt, reason, retryable } = command.data;
  const ended = state.progress.lastAttemptEnd;
  if (ended?.attempt === attempt && ended.how === 'failed_before_send') return [];
  requireOpenAttempt(command, state, attempt, ['dispatched']);
  return [
    {
      type: 'DispatchFailedBeforeSend',
      data: { executionId: state.facts.executionId, attempt, reason, retryable, failedAt: nowIso(command) },
    },
  ];
}

/**
 * Also from `dispatched_unknown` for the same attempt: a dispatcher that answers after its lease ran
 * out still saw the target's answer, and an observation beats any probe.
 */
export function observeOutcome(command: ObserveOutcome, state: KnownExecutionState): ExecutionEvent[] {
  const { attempt, targetStatus, succeeded, result } = command.data;
  const ended = state.progress.lastAttemptEnd;
  if (ended?.attempt === attempt && ended.how === 'observed' && state.progress.lastTargetStatus === targetStatus) return [];
  requireOpenAttempt(command, state, attempt, ['dispatched', 'dispatched_unknown']);
  return [
    {
      type: 'OutcomeObserved',
      data: { executionId: state.facts.executionId, attempt, targetStatus, succeeded, result, observedAt: nowIso(command) },
    },
  ];
}

export function markOutcomeUnknown(command: MarkOutcomeUnknown, state: KnownExecutionState): ExecutionEvent[] {
  const { attempt, reason, upstreamTaskId } = command.data;
  if (state.status === 'dispatched_unknown' && state.unknown.attempt === attempt) return [];
  requireOpenAttempt(command, state, attempt, ['dispatched']);
  const data = { executionId: state.facts.executionId, attempt, reason, detectedAt: nowIso(command) };
  return [{ type: 'OutcomeUnknown', data: upstreamTaskId === undefined ? data : { ...data, upstreamTaskId } }];
}
