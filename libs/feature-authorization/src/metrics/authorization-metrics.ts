import type { ExecutionEventEnvelope } from '@onceport/contracts';
import type { ExecutionState } from '@onceport/domain';
import { WAIT_BUCKETS, processCounter, processHistogram, toolLabel } from '@onceport/service-kit';
import type { AuthorizationRung } from '../authorize-execution/decide-authorization';

/*
 * What authorization decides, counted where it decides it. Labels: tool names of the loaded
 * contracts (else `other`) and closed sets (the ladder's rungs, approval kinds and decisions).
 */
const decisions = processCounter({
  name: 'onceport_authorization_decisions_total',
  help: 'Accepted executions decided by the ladder, by tool and rung (authorized, session_approval, per_use_approval, campaign_approval, vault_locked, actor_not_allowed).',
  labelNames: ['tool', 'rung'],
});

const requested = processCounter({
  name: 'onceport_approvals_requested_total',
  help: 'Approvals asked of a human (ApprovalRequested), by tool and kind (session, per_use).',
  labelNames: ['tool', 'kind'],
});

const decided = processCounter({
  name: 'onceport_approvals_decided_total',
  help: 'Approvals ended, by tool and decision (granted, rejected, expired).',
  labelNames: ['tool', 'decision'],
});

const wait = processHistogram({
  name: 'onceport_approval_wait_seconds',
  help: 'Seconds from ApprovalRequested to its grant, rejection or expiry, by tool and decision.',
  labelNames: ['tool', 'decision'],
  buckets: WAIT_BUCKETS,
});

export function countAuthorization(contracts: ReadonlyMap<string, unknown>, tool: string, rung: AuthorizationRung): void {
  decisions.inc({ tool: toolLabel(contracts, tool), rung });
}

/**
 * Counts the approval facts among what one append wrote to an execution stream; `events` is the
 * whole stream after the append (where the request an answer belongs to is found).
 */
export function countApprovalEvents(
  contracts: ReadonlyMap<string, unknown>,
  handled: {
    readonly state: ExecutionState;
    readonly events: readonly ExecutionEventEnvelope[];
    readonly appended: readonly ExecutionEventEnvelope[];
  },
): void {
  if (handled.state.status === 'none') return;
  const label = toolLabel(contracts, handled.state.facts.tool);
  for (const event of handled.appended) {
    if (event.type === 'ApprovalRequested') requested.inc({ tool: label, kind: event.data.kind ?? 'per_use' });
    const ended = endOf(event);
    if (!ended) continue;
    decided.inc({ tool: label, decision: ended.decision });
    const asked = lastRequest(handled.events);
    if (asked) wait.observe({ tool: label, decision: ended.decision }, Math.max(0, (Date.parse(ended.at) - Date.parse(asked)) / 1000));
  }
}

function endOf(event: ExecutionEventEnvelope): { decision: 'granted' | 'rejected' | 'expired'; at: string } | null {
  if (event.type === 'ApprovalGranted') return { decision: 'granted', at: event.data.decidedAt };
  if (event.type === 'ApprovalRejected') return { decision: 'rejected', at: event.data.decidedAt };
  if (event.type === 'ExecutionDenied' && event.data.code === 'approval_expired') return { decision: 'expired', at: event.data.deniedAt };
  return null;
}

/** An execution has at most one pending approval at a time: the newest request is the one answered. */
function lastRequest(events: readonly ExecutionEventEnvelope[]): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event?.type === 'ApprovalRequested') return event.data.requestedAt;
  }
  return null;
}
