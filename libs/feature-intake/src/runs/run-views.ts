import { type UnsafeEffect } from '@onceport/contracts';
import { type AttemptDivergence, type OpenRunState, type ReplayCheck, type RunExecution, unsafeReasonSentence } from '@onceport/domain';
import { type RunReport } from './runs.service';

/** How runs look on the wire: snake_case, like every other answer. */
export function runView(run: OpenRunState): object {
  return {
    run_id: run.runId,
    actor: run.actor,
    trigger: run.trigger,
    opened_at: run.openedAt,
    attempt: run.attempts[run.attempts.length - 1]?.attempt ?? 1,
    attempts: run.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      started_at: attempt.startedAt,
      requested_by: attempt.requestedBy,
      forced: attempt.forced && { by: attempt.forced.by, reason: attempt.forced.reason, unsafe_count: attempt.forced.unsafeCount },
    })),
  };
}

export function executionView(execution: RunExecution): object {
  return {
    execution_id: execution.executionId,
    tool: execution.tool,
    attempt: execution.attempt,
    state: execution.status,
    effect: execution.effectClass,
    target: execution.target,
    accepted_at: execution.acceptedAt,
    ledger_retention_ends_at: execution.ledgerRetentionEndsAt,
    ...(execution.repeats ? { repeats: execution.repeats } : {}),
  };
}

/** The run with its executions grouped by the attempt that asked for them (created, or asked again). */
export function runReportView(report: RunReport): object {
  const byAttempt = new Map<number, { created: string[]; askedAgain: string[] }>();
  for (const call of report.calls) {
    const entry = byAttempt.get(call.attempt) ?? { created: [], askedAgain: [] };
    (call.relation === 'created' ? entry.created : entry.askedAgain).push(call.executionId);
    byAttempt.set(call.attempt, entry);
  }
  return {
    ...runView(report.run),
    executions: [...report.executions.values()].map(executionView),
    calls_by_attempt: [...byAttempt.entries()].map(([attempt, calls]) => ({
      attempt,
      created: [...new Set(calls.created)],
      asked_again: [...new Set(calls.askedAgain)],
    })),
  };
}

/** Each unsafe tool with its executions, states and why: what a 409 and a forced replay list. */
export function unsafeByTool(check: ReplayCheck): object[] {
  const byTool = new Map<string, UnsafeEffect[]>();
  for (const effect of check.unsafe) byTool.set(effect.tool, [...(byTool.get(effect.tool) ?? []), effect]);
  return [...byTool.entries()].map(([tool, effects]) => ({
    tool,
    executions: effects.map((effect) => ({
      execution_id: effect.executionId,
      attempt: effect.attempt,
      state: effect.status,
      reason: effect.reason,
      why: unsafeReasonSentence(effect.reason),
    })),
  }));
}

export function divergenceView(runId: string, attempts: readonly AttemptDivergence[]): object {
  const list = (executions: readonly RunExecution[]) => executions.map(executionView);
  return {
    run_id: runId,
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      requested_again: list(attempt.requestedAgain),
      new: list(attempt.new),
      not_requested_again: list(attempt.notRequestedAgain),
      still_open: list(attempt.stillOpen),
    })),
  };
}
