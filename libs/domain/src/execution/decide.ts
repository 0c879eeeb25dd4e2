import { type ExecutionEvent } from '@onceport/contracts';
import { acceptExecution, attachRetry } from './decide-acceptance';
import { expireApproval, grantApproval, rejectApproval, requestApproval } from './decide-approval';
import { authorizeExecution, denyExecution } from './decide-authorization';
import { expireCorrelation, recordDelivery, revertExecution } from './decide-closure';
import { failDispatchBeforeSend, markOutcomeUnknown, observeOutcome, startDispatch } from './decide-dispatch';
import { recordProbe, resolveReview, settleOutcome } from './decide-settlement';
import { type ExecutionCommand } from './execution-command';
import { type ExecutionState } from './execution-state';
import { requireAccepted } from './guards';
import { IllegalTransitionError } from './illegal-transition.error';

/**
 * Decides what a command means for an execution: the events to append (none for a recognised
 * redelivery), or an {@link IllegalTransitionError}. Pure: time comes from `command.metadata.now`.
 *
 * @example const events = decide({ type: 'StartDispatch', data: { dispatcherId, leaseMs: 30_000 }, metadata: { now } }, foldEvents(stream));
 */
export function decide(command: ExecutionCommand, state: ExecutionState): ExecutionEvent[] {
  if (command.type === 'AcceptExecution') return acceptExecution(command, state);
  const known = requireAccepted(command, state);
  switch (command.type) {
    case 'AttachRetry':
      return attachRetry(command, known);
    case 'RequestApproval':
      return requestApproval(command, known);
    case 'GrantApproval':
      return grantApproval(command, known);
    case 'RejectApproval':
      return rejectApproval(command, known);
    case 'ExpireApproval':
      return expireApproval(command, known);
    case 'AuthorizeExecution':
      return authorizeExecution(command, known);
    case 'DenyExecution':
      return denyExecution(command, known);
    case 'StartDispatch':
      return startDispatch(command, known);
    case 'FailDispatchBeforeSend':
      return failDispatchBeforeSend(command, known);
    case 'ObserveOutcome':
      return observeOutcome(command, known);
    case 'MarkOutcomeUnknown':
      return markOutcomeUnknown(command, known);
    case 'RecordProbe':
      return recordProbe(command, known);
    case 'SettleOutcome':
      return settleOutcome(command, known);
    case 'RecordDelivery':
      return recordDelivery(command, known);
    case 'ResolveReview':
      return resolveReview(command, known);
    case 'RevertExecution':
      return revertExecution(command, known);
    case 'ExpireCorrelation':
      return expireCorrelation(command, known);
    default: {
      const _exhaustive: never = command;
      return _exhaustive;
    }
  }
}

export type DecideResult = { ok: true; events: ExecutionEvent[] } | { ok: false; error: IllegalTransitionError };

/** {@link decide} with the refusal as a value, for adapters that map it to JSON-RPC errors or problem details. */
export function tryDecide(command: ExecutionCommand, state: ExecutionState): DecideResult {
  try {
    return { ok: true, events: decide(command, state) };
  } catch (error) {
    if (error instanceof IllegalTransitionError) return { ok: false, error };
    throw error;
  }
}
