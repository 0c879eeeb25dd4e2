import { type CanonicalOperationRecord, type ExecutionEventEnvelope, type ProbeVerdict } from '@onceport/contracts';
import { type ExecutionState } from '@onceport/domain';

/** One execution awaiting a human's verdict, as `GET /v1/admin/reviews` lists it. */
export interface ReviewView {
  readonly execution_id: string;
  readonly actor: string;
  readonly tool: string;
  /** The canonical operation record: sensitive arguments as HMACs, generated text left out. */
  readonly record: CanonicalOperationRecord;
  readonly state: 'needs_review';
  readonly since: string;
  /** Why machines could not settle it. */
  readonly reason: string;
  /** Dispatch attempts started. */
  readonly attempts: number;
  readonly last_probe: {
    readonly probe_number: number;
    readonly verdict: ProbeVerdict;
    readonly detail: string;
    readonly probed_at: string;
  } | null;
}

/** The review view of an execution's folded stream; null unless it is in `needs_review` now. */
export function reviewViewOf(state: ExecutionState, events: readonly ExecutionEventEnvelope[]): ReviewView | null {
  if (state.status !== 'needs_review') return null;
  const probe = [...events].reverse().find((event) => event.type === 'ProbeAttempted');
  return {
    execution_id: state.facts.executionId,
    actor: state.facts.actor,
    tool: state.facts.tool,
    record: state.facts.record,
    state: 'needs_review',
    since: state.review.since,
    reason: state.review.reason,
    attempts: state.progress.attempt,
    last_probe:
      probe?.type === 'ProbeAttempted'
        ? { probe_number: probe.data.probeNumber, verdict: probe.data.verdict, detail: probe.data.detail, probed_at: probe.data.probedAt }
        : null,
  };
}
