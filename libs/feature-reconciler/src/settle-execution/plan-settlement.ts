import type { EffectClass, Settlement } from '@onceport/contracts';
import type { KnownExecutionState, SshToolContract, ToolContract } from '@onceport/domain';

export interface SettlementLimits {
  /** Probes of one unknown attempt before it goes to a human. */
  readonly maxProbes: number;
  /** Backoff before probe n+1: base × 2^(n-1), capped. */
  readonly probeBackoffMs: number;
  readonly maxProbeBackoffMs: number;
  /** Dispatch attempts before a re-dispatchable execution gives up. */
  readonly maxAttempts: number;
}

export type SettlementPlan =
  | { readonly kind: 'nothing' }
  | { readonly kind: 'wait'; readonly untilMs: number; readonly why: string }
  | { readonly kind: 'mark_unknown'; readonly attempt: number; readonly reason: string }
  | { readonly kind: 'probe'; readonly attempt: number; readonly probeNumber: number }
  | { readonly kind: 'settle'; readonly attempt: number; readonly settlement: Settlement; readonly reason: string };

export interface PlanInput {
  readonly state: KnownExecutionState;
  /** The tool's contract as loaded now; null when it is no longer configured. */
  readonly contract: ToolContract | null;
  readonly nowMs: number;
  /** When the last probe of the current attempt was recorded. */
  readonly lastProbeAtMs: number | null;
  readonly limits: SettlementLimits;
}

/** Effect classes that are never sent again without a human (DESIGN.md §3). */
const NEVER_RESENT: readonly EffectClass[] = ['irreversible', 'remote_command'];

/**
 * What the reconciler does next for an execution whose outcome nobody recorded (DESIGN.md §3
 * table). Pure: the handler carries the plan out (probe, append) and asks again.
 */
export function planSettlement(input: PlanInput): SettlementPlan {
  const { state, nowMs } = input;
  if (state.status === 'dispatched') {
    const leaseEnds = Date.parse(state.lease.leaseExpiresAt);
    if (leaseEnds > nowMs) return { kind: 'wait', untilMs: leaseEnds, why: 'dispatch lease still running' };
    return {
      kind: 'mark_unknown',
      attempt: state.lease.attempt,
      reason: "the dispatcher's lease ran out before it recorded an outcome (it may have died mid-request)",
    };
  }
  if (state.status !== 'dispatched_unknown') return { kind: 'nothing' };
  return planUnknown(input, state.unknown.attempt, state.unknown.probes, state.unknown.lastVerdict);
}

function planUnknown(input: PlanInput, attempt: number, probes: number, lastVerdict: string | null): SettlementPlan {
  const { contract, limits } = input;
  if (!contract) return settle(attempt, 'needs_review', 'the tool contract is no longer configured: a human must settle it');
  if (contract.channel === 'ssh') return planSshUnknown(input, contract, attempt, probes, lastVerdict);
  const effect = contract.effect;
  const mayRedispatch = attempt < limits.maxAttempts;
  if (lastVerdict === 'applied') return settle(attempt, 'completed', `probe ${probes} found the effect applied`);
  if (lastVerdict === 'not_applied') {
    if (NEVER_RESENT.includes(effect))
      return settle(attempt, 'needs_review', `probe ${probes} found no effect, but a ${effect} call is never re-sent without a human`);
    return mayRedispatch
      ? settle(attempt, 'not_applied', `probe ${probes} found no effect: dispatching again under the same execution id`)
      : settle(attempt, 'needs_review', `probe found no effect after ${attempt} attempts: a human decides`);
  }
  if (effect === 'none') {
    return mayRedispatch
      ? settle(attempt, 'not_applied', 'read-only call: safe to run again')
      : settle(attempt, 'failed', `read-only call gave no answer in ${attempt} attempts`);
  }
  // An MCP call is probed only through the task its upstream answered with (probe mcp_task): without
  // a task id there is nothing to ask, and the effect class table settles it.
  const probe =
    contract.channel === 'mcp'
      ? input.state.status === 'dispatched_unknown' && input.state.unknown.upstreamTaskId
        ? contract.probe
        : null
      : contract.probe;
  if (probe && probes < limits.maxProbes) return probeWithBackoff(input, attempt, probes);
  if (probe && probes >= limits.maxProbes) return settle(attempt, 'needs_review', `${probes} probes could not tell whether it was applied`);
  if (effect === 'idempotent') {
    return mayRedispatch
      ? settle(attempt, 'not_applied', 'idempotent: dispatching again under the same execution id as the idempotency key')
      : settle(attempt, 'needs_review', `no answer after ${attempt} attempts`);
  }
  return settle(
    attempt,
    'needs_review',
    `a ${effect}${contract.effectDeclared ? '' : ' (undeclared)'} call with an unknown outcome is never re-sent: a human must settle it`,
  );
}

/**
 * An SSH command is settled only by its marker, whatever its effect class: a command sent again
 * without reading the marker first could run twice (a bare one), or be refused by the host as
 * already started and never settle (a guarded one). No marker protocol → nothing to read → a human.
 */
function planSshUnknown(
  input: PlanInput,
  contract: SshToolContract,
  attempt: number,
  probes: number,
  lastVerdict: string | null,
): SettlementPlan {
  const { limits } = input;
  if (!contract.target.markers || contract.probe?.kind !== 'marker') {
    return settle(
      attempt,
      'needs_review',
      `an SSH command without the marker protocol (markers: false) is treated as irreversible: its outcome is unknown and it is never re-sent, a human must settle it`,
    );
  }
  if (lastVerdict === 'applied') return settle(attempt, 'completed', `probe ${probes} found the command completed`);
  if (lastVerdict === 'not_applied') {
    // Stronger evidence than any HTTP probe: the host itself refuses a second start of the
    // execution id, so sending again can never run the command twice.
    return attempt < limits.maxAttempts
      ? settle(
          attempt,
          'not_applied',
          `probe ${probes}: no marker on the host, the command never started; dispatching again (the host refuses a second start)`,
        )
      : settle(attempt, 'needs_review', `the command never started in ${attempt} attempts: a human decides`);
  }
  if (probes < limits.maxProbes) return probeWithBackoff(input, attempt, probes);
  return settle(attempt, 'needs_review', `${probes} readings of the marker could not tell whether the command ran`);
}

/** The next probe, after base × 2^(n-1) (capped) since the last one could not tell. */
function probeWithBackoff(input: PlanInput, attempt: number, probes: number): SettlementPlan {
  const { limits } = input;
  if (probes > 0 && input.lastProbeAtMs !== null) {
    const backoff = Math.min(limits.probeBackoffMs * 2 ** (probes - 1), limits.maxProbeBackoffMs);
    if (input.lastProbeAtMs + backoff > input.nowMs)
      return { kind: 'wait', untilMs: input.lastProbeAtMs + backoff, why: `probe ${probes} could not tell; backing off` };
  }
  return { kind: 'probe', attempt, probeNumber: probes + 1 };
}

function settle(attempt: number, settlement: Settlement, reason: string): SettlementPlan {
  return { kind: 'settle', attempt, settlement, reason };
}
