import { type ExecutionEvent } from '@onceport/contracts';
import { type AuthorizeExecution, type DenyExecution } from './execution-command';
import { type KnownExecutionState } from './execution-state';
import { nowIso, reached, refuse, refuseTransition } from './guards';

export function authorizeExecution(command: AuthorizeExecution, state: KnownExecutionState): ExecutionEvent[] {
  const { basis, policyVersion } = command.data;
  if (state.status === 'authorized' && state.progress.authorization?.basis === basis) return [];
  if (state.status !== 'accepted') return refuseTransition(command, state);
  // DESIGN.md §6: a per-use credential needs a human for each call; no policy or session grant replaces that.
  if (state.facts.approval === 'per_use') {
    return refuse(
      'approval_required',
      command,
      state,
      `${state.facts.tool} uses a per-use credential: it needs a human approval, not a ${basis} authorization.`,
    );
  }
  return [
    {
      type: 'ExecutionAuthorized',
      data: { executionId: state.facts.executionId, basis, policyVersion, approvalId: null, authorizedAt: nowIso(command) },
    },
  ];
}

/**
 * A denial stands while nothing has been applied: from accepted, awaiting_approval, or authorized
 * (also after a retryable pre-send failure or a not_applied settlement). Once something may have
 * reached the target, denying it would hide that.
 */
export function denyExecution(command: DenyExecution, state: KnownExecutionState): ExecutionEvent[] {
  const { code, reason } = command.data;
  if (state.status === 'denied' && state.denial.code === code) return [];
  if (state.status !== 'accepted' && state.status !== 'awaiting_approval' && state.status !== 'authorized')
    return refuseTransition(command, state);
  if (code === 'approval_expired') {
    if (state.status !== 'awaiting_approval') return refuseTransition(command, state, 'no approval is pending');
    if (!reached(command, state.approvalRequest.expiresAt)) {
      return refuse(
        'approval_not_expired',
        command,
        state,
        `Approval ${state.approvalRequest.approvalId} runs until ${state.approvalRequest.expiresAt}.`,
      );
    }
  }
  return [{ type: 'ExecutionDenied', data: { executionId: state.facts.executionId, code, reason, deniedAt: nowIso(command) } }];
}
