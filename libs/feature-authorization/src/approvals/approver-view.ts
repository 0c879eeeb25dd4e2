import { type ApprovalKind, type CanonicalOperationRecord, type ExecutionEventEnvelope, type ExecutionStatus } from '@onceport/contracts';
import { type ExecutionState, type ToolContract, effectiveAgentProcess } from '@onceport/domain';
import { type OperationTarget, targetOf } from './operation-target';

export type ApprovalStatus = 'pending' | 'granted' | 'rejected' | 'expired';

/** What an approver is shown (DESIGN.md §6): the original record, never the wording of a retry. */
export interface ApproverView {
  readonly approval_id: string;
  readonly execution_id: string;
  readonly status: ApprovalStatus;
  readonly kind: ApprovalKind;
  readonly actor: string;
  readonly agent_process: string;
  readonly tool: string;
  readonly target: OperationTarget;
  /** The canonical operation record: sensitive arguments as HMACs, generated text left out. */
  readonly record: CanonicalOperationRecord;
  readonly fingerprint: string;
  readonly policy_version: string;
  /** Why approval is needed. */
  readonly reason: string;
  readonly requested_at: string;
  readonly expires_at: string;
  readonly decided_by: string | null;
  readonly decided_at: string | null;
  readonly decision_reason: string | null;
  readonly first_dispatched_at: string | null;
  readonly known_outcome: { readonly state: ExecutionStatus; readonly target_status: number | null } | null;
  readonly retries_attached: number;
  readonly retry_note: string;
  /** The run and attempt the call belongs to (DESIGN.md §7); null outside runs. */
  readonly run: { readonly id: string; readonly attempt: number; readonly trigger: string } | null;
  /**
   * The earlier execution of the same intent this one repeats — the attempt-1 execution an attempt-2
   * call asks for again, or one the agent said it deliberately repeats, with its reason. `state` and
   * `attempt` are filled in by the desk from that execution's stream.
   */
  readonly repeats: RepeatedView | null;
}

export interface RepeatedView {
  readonly execution_id: string;
  readonly deliberate: boolean;
  readonly reason: string | null;
  readonly state?: ExecutionStatus;
  readonly attempt?: number | null;
  readonly completed_at?: string | null;
}

export interface ExecutionHistory {
  readonly state: ExecutionState;
  readonly events: readonly ExecutionEventEnvelope[];
}

type Decision = {
  readonly status: Exclude<ApprovalStatus, 'pending'>;
  readonly by: string | null;
  readonly at: string;
  readonly reason: string;
};

/**
 * The approver's view of the one approval of an execution, folded from its stream; null when the
 * execution never asked for one. Pure: `now` decides whether an undecided approval has lapsed
 * (shown `expired` at once, even before the sweep records it).
 *
 * @example approverViewOf(await commands.load(executionStream(id)), contracts.get(tool), new Date())
 */
export function approverViewOf(history: ExecutionHistory, contract: ToolContract | undefined, now: Date): ApproverView | null {
  const { state, events } = history;
  const requested = events.find((event) => event.type === 'ApprovalRequested');
  if (!requested || requested.type !== 'ApprovalRequested' || state.status === 'none') return null;
  const request = requested.data;
  const { facts, progress } = state;
  const decision = decisionOf(events) ?? lapsed(request.expiresAt, now);
  return {
    approval_id: request.approvalId,
    execution_id: facts.executionId,
    status: decision?.status ?? 'pending',
    // Before approvals named their kind, a non-per-use call could only have waited for a session grant.
    kind: request.kind ?? (facts.approval === 'per_use' ? 'per_use' : 'session'),
    actor: facts.actor,
    agent_process: effectiveAgentProcess(facts.actor, facts.agentProcess),
    tool: facts.tool,
    target: targetOf(facts.record, contract),
    record: facts.record,
    fingerprint: request.fingerprint,
    policy_version: request.policyVersion,
    reason: request.reason,
    requested_at: request.requestedAt,
    expires_at: request.expiresAt,
    decided_by: decision?.by ?? null,
    decided_at: decision && decision.by !== null ? decision.at : null,
    decision_reason: decision && decision.by !== null ? decision.reason : null,
    first_dispatched_at: progress.firstDispatchedAt,
    known_outcome: progress.firstDispatchedAt === null ? null : { state: state.status, target_status: progress.lastTargetStatus },
    retries_attached: progress.retriesAttached,
    retry_note: retryNote(progress.retriesAttached, state.status, progress.firstDispatchedAt),
    run: facts.run ? { id: facts.run.runId, attempt: facts.run.attempt, trigger: facts.run.trigger } : null,
    repeats: facts.repeats
      ? { execution_id: facts.repeats.executionId, deliberate: facts.repeats.deliberate, reason: facts.repeats.reason }
      : null,
  };
}

/**
 * What ended the approval, as recorded: a grant, a rejection, or an expiry (by the sweep, or by the
 * window closing). Only called for a stream with an ApprovalRequested, and nothing but a decision
 * can follow one before dispatch, so the first such event is the decision.
 */
function decisionOf(events: readonly ExecutionEventEnvelope[]): Decision | null {
  for (const event of events) {
    switch (event.type) {
      case 'ApprovalGranted':
        return { status: 'granted', by: event.data.approver, at: event.data.decidedAt, reason: event.data.reason };
      case 'ApprovalRejected':
        return { status: 'rejected', by: event.data.approver, at: event.data.decidedAt, reason: event.data.reason };
      case 'ExecutionDenied':
        return {
          status: event.data.code === 'approval_expired' ? 'expired' : 'rejected',
          by: event.metadata.actor ?? 'unknown',
          at: event.data.deniedAt,
          reason: event.data.reason,
        };
      case 'CorrelationExpired':
        return {
          status: 'expired',
          by: event.metadata.actor ?? 'unknown',
          at: event.data.expiredAt,
          reason: 'The correlation window closed before anyone decided.',
        };
      default:
        break;
    }
  }
  return null;
}

function lapsed(expiresAt: string, now: Date): Decision | null {
  return now.getTime() >= Date.parse(expiresAt) ? { status: 'expired', by: null, at: expiresAt, reason: '' } : null;
}

/** Why nothing was sent twice, in plain words for the approver. */
export function retryNote(retries: number, status: ExecutionStatus, firstDispatchedAt: string | null): string {
  if (retries === 0) return 'No retry has arrived for this execution.';
  const count = retries === 1 ? '1 retry attached' : `${retries} retries attached`;
  const base = `${count} to this execution; nothing was re-sent and no second approval was requested`;
  if (firstDispatchedAt !== null)
    return `${base}. The target received this call once, first at ${firstDispatchedAt}; the execution is ${status}.`;
  if (status === 'awaiting_approval') return `${base}. The retries wait for this decision.`;
  return `${base}. The execution is ${status}.`;
}
