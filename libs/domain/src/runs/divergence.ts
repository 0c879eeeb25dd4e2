import { type RunExecution } from './run-execution';

/** One call of a run: which attempt asked, and which execution answered it (new, or attached to an earlier one). */
export interface RunCall {
  readonly attempt: number;
  readonly executionId: string;
}

export interface AttemptDivergence {
  readonly attempt: number;
  /** Effects of earlier attempts this attempt asked for again (answered as ledger hits or attached retries, or repeated). */
  readonly requestedAgain: readonly RunExecution[];
  /** Executions this attempt created. */
  readonly new: readonly RunExecution[];
  /** Effects done in an earlier attempt that this attempt did not ask for again: reported, never forgotten. */
  readonly notRequestedAgain: readonly RunExecution[];
  /** Executions of earlier attempts whose outcome is still unknown or in review. */
  readonly stillOpen: readonly RunExecution[];
}

const OPEN = new Set(['dispatched_unknown', 'needs_review']);

/**
 * The divergence report (DESIGN.md §7): per attempt, what it asked again, what is new, and what an
 * earlier attempt did that it did not ask for. "Asked again" is by intent (the fingerprint), so an
 * effect repeated by a new execution counts as asked, not as forgotten.
 */
export function divergenceOf(
  attempts: number,
  calls: readonly RunCall[],
  executions: ReadonlyMap<string, RunExecution>,
): AttemptDivergence[] {
  const report: AttemptDivergence[] = [];
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const earlier = [...executions.values()].filter((execution) => execution.attempt < attempt);
    const created = [...executions.values()].filter((execution) => execution.attempt === attempt);
    const askedIds = new Set(calls.filter((call) => call.attempt === attempt).map((call) => call.executionId));
    const askedIntents = new Set([...askedIds].flatMap((id) => executions.get(id)?.fingerprint ?? []));
    const requestedAgain = earlier.filter((execution) => askedIds.has(execution.executionId) || askedIntents.has(execution.fingerprint));
    const again = new Set(requestedAgain.map((execution) => execution.executionId));
    report.push({
      attempt,
      requestedAgain: byTime(requestedAgain),
      new: byTime(created),
      notRequestedAgain: byTime(earlier.filter((execution) => execution.effectDone && !again.has(execution.executionId))),
      stillOpen: byTime(earlier.filter((execution) => OPEN.has(execution.status))),
    });
  }
  return report;
}

function byTime(executions: RunExecution[]): RunExecution[] {
  return executions.sort((a, b) => a.acceptedAt.localeCompare(b.acceptedAt) || a.executionId.localeCompare(b.executionId));
}
