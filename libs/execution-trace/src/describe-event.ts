import type { ExecutionEventEnvelope } from '@onceport/contracts';
import { clause } from './wording';

/** One line of the timeline: what the event says, in words. */
export function describeEvent(event: ExecutionEventEnvelope): string {
  switch (event.type) {
    case 'ExecutionAccepted': {
      const d = event.data;
      const run = d.run ? `; run ${d.run.runId} attempt ${d.run.attempt}` : '';
      const repeats = d.repeats
        ? `; ${d.repeats.deliberate ? `deliberately repeats (${clause(d.repeats.reason ?? '')})` : 'repeats'} ${d.repeats.executionId}`
        : '';
      return `${d.tool} for ${d.actor}${d.agentProcess ? ` (agent process ${d.agentProcess})` : ''}, ${d.effectClass}, approval ${d.approval}${d.clientIdempotencyKey ? `, idempotency key ${d.clientIdempotencyKey}` : ''}${run}${repeats}; from ${event.metadata.causationId}`;
    }
    case 'ApprovalRequested':
      return `approval ${event.data.approvalId} requested (policy ${event.data.policyVersion}): ${clause(event.data.reason)}; expires ${event.data.expiresAt}`;
    case 'ApprovalGranted':
      return `approval ${event.data.approvalId} granted by ${event.data.approver}${event.data.reason ? `: ${event.data.reason}` : ''}`;
    case 'ApprovalRejected':
      return `approval ${event.data.approvalId} rejected by ${event.data.approver}${event.data.reason ? `: ${event.data.reason}` : ''}`;
    case 'ExecutionAuthorized':
      return `authorized by ${event.data.basis} (policy ${event.data.policyVersion})${event.data.approvalId ? ` on approval ${event.data.approvalId}` : ''}`;
    case 'ExecutionDenied':
      return `denied (${event.data.code}): ${event.data.reason}`;
    case 'RetryAttached':
      return `a later call attached: ${event.data.agentProcess ?? 'no agent process named'}, ${event.data.correlation.transport}${event.data.clientIdempotencyKey ? `, idempotency key ${event.data.clientIdempotencyKey}` : ', no idempotency key'}; answered from ${event.data.stateAtAttach}${event.data.run ? ` (run ${event.data.run.runId} attempt ${event.data.run.attempt})` : ''}`;
    case 'DispatchStarted':
      return `attempt ${event.data.attempt} on ${event.data.dispatcherId} (lease until ${event.data.leaseExpiresAt})`;
    case 'DispatchFailedBeforeSend':
      return `attempt ${event.data.attempt} failed before sending${event.data.retryable ? ' (retryable)' : ''}: ${event.data.reason}`;
    case 'OutcomeObserved':
      return `attempt ${event.data.attempt}: target answered ${event.data.targetStatus} (${event.data.succeeded ? 'succeeded' : 'refused'})`;
    case 'OutcomeUnknown':
      return `attempt ${event.data.attempt}: outcome unknown — ${event.data.reason}`;
    case 'ProbeAttempted':
      return `probe ${event.data.probeNumber} of attempt ${event.data.attempt}: ${event.data.verdict}${event.data.detail ? ` (${event.data.detail})` : ''}`;
    case 'OutcomeSettled':
      return `attempt ${event.data.attempt} settled as ${event.data.settlement}: ${event.data.reason}`;
    case 'ResultDelivered':
      return `result delivered over ${event.data.transport}${event.data.replay ? ' as a replay' : ' to the original request'}${event.data.correlation.sessionId ? ` (session ${event.data.correlation.sessionId})` : ''}`;
    case 'ReviewResolved':
      return `review resolved as ${event.data.resolution} by ${event.data.reviewer}: ${event.data.reason}`;
    case 'ExecutionReverted':
      return `reverted by ${event.data.by}: ${event.data.reason}`;
    case 'CorrelationExpired':
      return 'correlation window closed: later calls no longer match';
    default: {
      const _exhaustive: never = event;
      return String(_exhaustive);
    }
  }
}

/** When it happened by the event's own clock (occurredAt), falling back to when the store recorded it. */
export function occurredAt(event: ExecutionEventEnvelope | null, recordedAt: Date): string {
  return event?.metadata.occurredAt ?? recordedAt.toISOString();
}
