import { type UnsafeEffect, type UnsafeReason } from '@onceport/contracts';
import { type RunExecution } from './run-execution';

export interface ReplayCheck {
  /** Yes only when every effect the run produced is replay-safe (DESIGN.md §7). */
  readonly safe: boolean;
  readonly unsafe: readonly UnsafeEffect[];
}

/**
 * Would attempt n+1 repeat anything? Safe: read-only effects, effects that never happened (failed,
 * denied, reverted), and completed effects a ledger entry still covers (a repeat is a ledger hit).
 * Everything else is listed with why.
 */
export function checkReplay(executions: readonly RunExecution[], now: Date): ReplayCheck {
  const unsafe: UnsafeEffect[] = [];
  for (const execution of executions) {
    const reason = unsafeReason(execution, now.getTime());
    if (reason) {
      const { executionId, tool, attempt, status } = execution;
      unsafe.push({ executionId, tool, attempt, status, reason });
    }
  }
  return { safe: unsafe.length === 0, unsafe };
}

function unsafeReason(execution: RunExecution, nowMs: number): UnsafeReason | null {
  switch (execution.status) {
    case 'dispatched_unknown':
      return 'outcome_unknown';
    case 'needs_review':
      return 'awaiting_review';
    case 'accepted':
    case 'awaiting_approval':
    case 'authorized':
    case 'dispatched':
      return 'in_flight';
    default:
      break;
  }
  if (!execution.effectDone || execution.effectClass === 'none') return null;
  // Expired executions never match again (§5), so no ledger answers for them.
  const ledgerEnds = execution.status === 'expired' ? null : execution.ledgerRetentionEndsAt;
  if (ledgerEnds === null) {
    return execution.effectClass === 'irreversible' || execution.effectClass === 'remote_command'
      ? 'irreversible_completed'
      : 'completed_without_ledger';
  }
  return nowMs < Date.parse(ledgerEnds) ? null : 'ledger_retention_lapsed';
}

const WHY: Record<UnsafeReason, string> = {
  irreversible_completed: 'irreversible (or undeclared) and completed; no ledger would turn a repeat into a hit',
  completed_without_ledger: 'completed and the tool keeps no ledger: a repeat would be sent again',
  ledger_retention_lapsed: 'completed, but its ledger retention is over: a repeat would be sent again',
  outcome_unknown: 'its outcome is not known yet',
  awaiting_review: 'a human is reviewing its outcome',
  in_flight: 'it is still on its way',
};

/** One sentence per reason, for answers and the CLI. */
export function unsafeReasonSentence(reason: UnsafeReason): string {
  return WHY[reason];
}
