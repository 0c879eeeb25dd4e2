import { type ExecutionEvent } from '@onceport/contracts';
import { type ExpireApproval, type GrantApproval, type RejectApproval, type RequestApproval } from './execution-command';
import { type AwaitingApprovalState, type KnownExecutionState } from './execution-state';
import { nowIso, plusMs, reached, refuse, refuseTransition, requirePositive } from './guards';
import { approvalExpiredSentence, rejectionSentence } from './sentences';

export function requestApproval(command: RequestApproval, state: KnownExecutionState): ExecutionEvent[] {
  const { approvalId, policyVersion, reason, expiresInMs, kind } = command.data;
  if (state.status === 'awaiting_approval' && state.approvalRequest.approvalId === approvalId) return [];
  if (state.status !== 'accepted') return refuseTransition(command, state);
  requirePositive(command, state, 'expiresInMs', expiresInMs);
  const { executionId, fingerprint } = state.facts;
  return [
    {
      type: 'ApprovalRequested',
      data: {
        executionId,
        approvalId,
        fingerprint,
        policyVersion,
        reason,
        ...(kind ? { kind } : {}),
        expiresAt: plusMs(command, expiresInMs),
        requestedAt: nowIso(command),
      },
    },
  ];
}

/** A grant authorizes in the same append, so the dispatcher only ever waits for ExecutionAuthorized. */
export function grantApproval(command: GrantApproval, state: KnownExecutionState): ExecutionEvent[] {
  const { approvalId, approver, reason } = command.data;
  if (state.status === 'authorized' && state.progress.authorization?.basis === 'approval' && state.progress.approvalId === approvalId)
    return [];
  const pending = requirePending(command, state);
  if (reached(command, pending.approvalRequest.expiresAt)) {
    return refuse(
      'approval_expired',
      command,
      state,
      `Approval ${approvalId} expired at ${pending.approvalRequest.expiresAt}; it can no longer be granted.`,
    );
  }
  const { executionId } = state.facts;
  const at = nowIso(command);
  return [
    { type: 'ApprovalGranted', data: { executionId, approvalId, approver, reason, decidedAt: at } },
    {
      type: 'ExecutionAuthorized',
      data: { executionId, basis: 'approval', policyVersion: pending.approvalRequest.policyVersion, approvalId, authorizedAt: at },
    },
  ];
}

/** Rejection after expiry is still accepted: the outcome (denied) is the same and the approver's word is kept. */
export function rejectApproval(command: RejectApproval, state: KnownExecutionState): ExecutionEvent[] {
  const { approvalId, approver, reason } = command.data;
  if (state.status === 'denied' && state.denial.code === 'approval_rejected' && state.progress.approvalId === approvalId) return [];
  requirePending(command, state);
  const { executionId } = state.facts;
  const at = nowIso(command);
  return [
    { type: 'ApprovalRejected', data: { executionId, approvalId, approver, reason, decidedAt: at } },
    {
      type: 'ExecutionDenied',
      data: { executionId, code: 'approval_rejected', reason: rejectionSentence(approver, reason), deniedAt: at },
    },
  ];
}

/**
 * The expiry sweep's command. Bound to the approval id, so a sweep that read an old list can only
 * end the approval it saw; before the deadline it is refused, after a decision it is refused too.
 */
export function expireApproval(command: ExpireApproval, state: KnownExecutionState): ExecutionEvent[] {
  const { approvalId } = command.data;
  if (state.status === 'denied' && state.denial.code === 'approval_expired' && state.progress.approvalId === approvalId) return [];
  const pending = requirePending(command, state);
  const { expiresAt } = pending.approvalRequest;
  if (!reached(command, expiresAt))
    return refuse('approval_not_expired', command, state, `Approval ${approvalId} runs until ${expiresAt}.`);
  return [
    {
      type: 'ExecutionDenied',
      data: {
        executionId: state.facts.executionId,
        code: 'approval_expired',
        reason: approvalExpiredSentence(approvalId, expiresAt),
        deniedAt: nowIso(command),
      },
    },
  ];
}

function requirePending(command: GrantApproval | RejectApproval | ExpireApproval, state: KnownExecutionState): AwaitingApprovalState {
  if (state.status !== 'awaiting_approval') return refuseTransition(command, state, 'no approval is pending');
  if (state.approvalRequest.approvalId !== command.data.approvalId) {
    return refuse(
      'approval_mismatch',
      command,
      state,
      `Approval ${command.data.approvalId} is not the pending one (${state.approvalRequest.approvalId}).`,
    );
  }
  return state;
}
