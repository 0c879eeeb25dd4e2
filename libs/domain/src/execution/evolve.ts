import { type ExecutionAcceptedData, type ExecutionEvent } from '@onceport/contracts';
import { type ExecutionProgress, type ExecutionState, type KnownExecutionState, initialState } from './execution-state';
import { rejectionSentence, reviewedNotAppliedSentence, targetRefusedSentence } from './sentences';

/**
 * Folds one event into the state. Total and lenient on purpose: events are recorded facts, so
 * evolve never refuses one (decide is where rules are enforced). An event before ExecutionAccepted
 * has no execution to apply to and is ignored.
 */
export function evolve(state: ExecutionState, event: ExecutionEvent): ExecutionState {
  if (event.type === 'ExecutionAccepted') return state.status === 'none' ? accepted(event.data) : state;
  if (state.status === 'none') return state;
  return evolveKnown(state, event);
}

/** Folds a whole stream, oldest first. */
export function foldEvents(events: Iterable<ExecutionEvent>): ExecutionState {
  let state = initialState();
  for (const event of events) state = evolve(state, event);
  return state;
}

function evolveKnown(state: KnownExecutionState, event: Exclude<ExecutionEvent, { type: 'ExecutionAccepted' }>): ExecutionState {
  const { facts, progress } = state;
  const at = (patch: Partial<ExecutionProgress>): ExecutionProgress => ({ ...progress, ...patch });
  switch (event.type) {
    case 'ApprovalRequested': {
      const { approvalId, policyVersion, reason, expiresAt, requestedAt } = event.data;
      return {
        status: 'awaiting_approval',
        facts,
        progress: at({ approvalId }),
        approvalRequest: { approvalId, policyVersion, reason, expiresAt, requestedAt },
      };
    }
    case 'ApprovalGranted': {
      // ExecutionAuthorized follows in the same append; the grant alone already authorizes.
      const policyVersion =
        state.status === 'awaiting_approval' ? state.approvalRequest.policyVersion : (progress.authorization?.policyVersion ?? 'unknown');
      const authorization = { basis: 'approval' as const, policyVersion, authorizedAt: event.data.decidedAt };
      return { status: 'authorized', facts, progress: at({ approvalId: event.data.approvalId, authorization }) };
    }
    case 'ApprovalRejected': {
      const { approver, reason, decidedAt } = event.data;
      const denial = { code: 'approval_rejected' as const, reason: rejectionSentence(approver, reason), deniedAt: decidedAt };
      return { status: 'denied', facts, progress: at({ approvalId: event.data.approvalId }), denial };
    }
    case 'ExecutionAuthorized': {
      const { basis, policyVersion, approvalId, authorizedAt } = event.data;
      return {
        status: 'authorized',
        facts,
        progress: at({ approvalId: approvalId ?? progress.approvalId, authorization: { basis, policyVersion, authorizedAt } }),
      };
    }
    case 'ExecutionDenied': {
      const { code, reason, deniedAt } = event.data;
      return { status: 'denied', facts, progress, denial: { code, reason, deniedAt } };
    }
    case 'RetryAttached':
      return { ...state, progress: at({ retriesAttached: progress.retriesAttached + 1 }) };
    case 'DispatchStarted': {
      const { attempt, dispatcherId, leaseExpiresAt, startedAt } = event.data;
      const next = at({ attempt, firstDispatchedAt: progress.firstDispatchedAt ?? startedAt });
      return { status: 'dispatched', facts, progress: next, lease: { attempt, dispatcherId, leaseExpiresAt, startedAt } };
    }
    case 'DispatchFailedBeforeSend': {
      const { attempt, reason, retryable, failedAt } = event.data;
      const next = at({ lastAttemptEnd: { attempt, how: 'failed_before_send' } });
      // Nothing reached the target, so a retryable failure is simply "authorized, not yet sent" again.
      return retryable
        ? { status: 'authorized', facts, progress: next }
        : { status: 'failed', facts, progress: next, failure: { reason, failedAt } };
    }
    case 'OutcomeObserved': {
      const { attempt, targetStatus, succeeded, result, observedAt } = event.data;
      const next = at({ lastAttemptEnd: { attempt, how: 'observed' }, lastTargetStatus: targetStatus, lastResult: result });
      return succeeded
        ? { status: 'completed_result_not_delivered', facts, progress: next, completedAt: observedAt }
        : { status: 'failed', facts, progress: next, failure: { reason: targetRefusedSentence(targetStatus), failedAt: observedAt } };
    }
    case 'OutcomeUnknown': {
      const { attempt, reason, detectedAt, upstreamTaskId } = event.data;
      return {
        status: 'dispatched_unknown',
        facts,
        progress: at({ lastAttemptEnd: { attempt, how: 'unknown' } }),
        unknown: { attempt, reason, detectedAt, probes: 0, lastVerdict: null, upstreamTaskId: upstreamTaskId ?? null },
      };
    }
    case 'ProbeAttempted':
      if (state.status !== 'dispatched_unknown') return state;
      return {
        ...state,
        unknown: { ...state.unknown, probes: Math.max(state.unknown.probes, event.data.probeNumber), lastVerdict: event.data.verdict },
      };
    case 'OutcomeSettled':
      return settled(state, event.data);
    case 'ResultDelivered': {
      const { transport, replay, correlation, deliveredAt } = event.data;
      const next = at({ delivered: true, lastDelivery: { transport, replay, correlation, deliveredAt } });
      return state.status === 'completed_result_not_delivered'
        ? { status: 'completed', facts, progress: next, completedAt: state.completedAt }
        : { ...state, progress: next };
    }
    case 'ReviewResolved': {
      const { resolution, reviewer, reason, resolvedAt } = event.data;
      const next = at({ reviewResolution: resolution });
      return resolution === 'applied'
        ? { status: 'completed_result_not_delivered', facts, progress: next, completedAt: resolvedAt }
        : {
            status: 'failed',
            facts,
            progress: next,
            failure: { reason: reviewedNotAppliedSentence(reviewer, reason), failedAt: resolvedAt },
          };
    }
    case 'ExecutionReverted': {
      const { by, reason, revertedAt } = event.data;
      return { status: 'reverted', facts, progress, reversal: { by, reason, revertedAt, from: state.status } };
    }
    case 'CorrelationExpired':
      return { status: 'expired', facts, progress, expiry: { expiredAt: event.data.expiredAt, from: state.status } };
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
}

function settled(state: KnownExecutionState, data: Extract<ExecutionEvent, { type: 'OutcomeSettled' }>['data']): ExecutionState {
  const { facts, progress } = state;
  const { attempt, settlement, reason, targetStatus, result, settledAt } = data;
  const next: ExecutionProgress = {
    ...progress,
    lastAttemptEnd: { attempt, how: 'settled', settlement, reason },
    lastTargetStatus: targetStatus ?? progress.lastTargetStatus,
    lastResult: result ?? progress.lastResult,
  };
  switch (settlement) {
    case 'completed':
      return { status: 'completed_result_not_delivered', facts, progress: next, completedAt: settledAt };
    case 'not_applied':
      return { status: 'authorized', facts, progress: next };
    case 'needs_review':
      return { status: 'needs_review', facts, progress: next, review: { reason, since: settledAt } };
    case 'failed':
      return { status: 'failed', facts, progress: next, failure: { reason, failedAt: settledAt } };
    default: {
      const _exhaustive: never = settlement;
      return _exhaustive;
    }
  }
}

function accepted(data: ExecutionAcceptedData): ExecutionState {
  return {
    status: 'accepted',
    facts: { ...data },
    progress: {
      attempt: 0,
      firstDispatchedAt: null,
      approvalId: null,
      authorization: null,
      lastAttemptEnd: null,
      lastTargetStatus: null,
      lastResult: null,
      delivered: false,
      lastDelivery: null,
      retriesAttached: 0,
      reviewResolution: null,
    },
  };
}
