import { type EffectClass, type ExecutionEvent } from '@onceport/contracts';
import { type RecordProbe, type ResolveReview, type SettleOutcome } from './execution-command';
import { type DispatchedUnknownState, type KnownExecutionState } from './execution-state';
import { nowIso, refuse, refuseTransition } from './guards';
import { requireOpenAttempt } from './open-attempt';

/** Effect classes where sending again under the same execution id is harmless (DESIGN.md §3). */
const REDISPATCH_WITHOUT_EVIDENCE: readonly EffectClass[] = ['none', 'idempotent'];

export function recordProbe(command: RecordProbe, state: KnownExecutionState): ExecutionEvent[] {
  const { attempt, probeNumber, verdict, detail } = command.data;
  // Probe numbers are handed out one by one by the reconciler: one we already hold is a redelivery.
  if (state.status === 'dispatched_unknown' && state.unknown.attempt === attempt && probeNumber <= state.unknown.probes) return [];
  const unknown = requireOpenAttempt(command, state, attempt, ['dispatched_unknown']);
  const expected = unknown.unknown.probes + 1;
  if (probeNumber !== expected)
    return refuse('probe_out_of_order', command, state, `Probe ${probeNumber} skips ahead; the next probe is ${expected}.`);
  return [
    {
      type: 'ProbeAttempted',
      data: { executionId: state.facts.executionId, attempt, probeNumber, verdict, detail, probedAt: nowIso(command) },
    },
  ];
}

/**
 * Settles an unknown outcome. `not_applied` sends the execution back to `authorized`, where it may
 * be dispatched again, so it needs evidence unless a re-send is harmless for the effect class:
 * DESIGN.md §5, "never a blind re-send".
 */
export function settleOutcome(command: SettleOutcome, state: KnownExecutionState): ExecutionEvent[] {
  const { attempt, settlement, reason, targetStatus, result } = command.data;
  const ended = state.progress.lastAttemptEnd;
  if (ended?.attempt === attempt && ended.how === 'settled' && ended.settlement === settlement) return [];
  const unknown = requireOpenAttempt(command, state, attempt, ['dispatched_unknown']);
  if (settlement === 'not_applied' && !redispatchIsBacked(unknown)) {
    return refuse(
      'unsafe_redispatch',
      command,
      state,
      `A ${unknown.facts.effectClass} effect can only be settled not_applied after a probe said not_applied (last verdict: ${unknown.unknown.lastVerdict ?? 'no probe'}).`,
    );
  }
  return [
    {
      type: 'OutcomeSettled',
      data: { executionId: state.facts.executionId, attempt, settlement, reason, targetStatus, result, settledAt: nowIso(command) },
    },
  ];
}

/**
 * `not_applied` ends in `failed`, not back in `authorized`: a human's finding must not quietly turn
 * into a send nobody is waiting for. The agent (or operator) calls again, which is a new execution
 * with its own approval, since failed executions never match.
 */
export function resolveReview(command: ResolveReview, state: KnownExecutionState): ExecutionEvent[] {
  const { resolution, reviewer, reason } = command.data;
  if (state.progress.reviewResolution === resolution) return [];
  if (state.status !== 'needs_review') return refuseTransition(command, state);
  return [
    { type: 'ReviewResolved', data: { executionId: state.facts.executionId, resolution, reviewer, reason, resolvedAt: nowIso(command) } },
  ];
}

function redispatchIsBacked(state: DispatchedUnknownState): boolean {
  return REDISPATCH_WITHOUT_EVIDENCE.includes(state.facts.effectClass) || state.unknown.lastVerdict === 'not_applied';
}
