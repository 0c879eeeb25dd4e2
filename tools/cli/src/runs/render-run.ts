import type { ReplayAnswer, RunAnswer, RunAttempt, RunExecutionAnswer, RunReportAnswer, RunSummary, UnsafeTool } from './run-answers';
import { table } from './text-table';

export function renderRunList(runs: readonly RunSummary[]): string {
  if (runs.length === 0) return "no runs for this key's actor";
  return table(
    ['RUN', 'TRIGGER', 'ATTEMPTS', 'OPENED', 'LAST ATTEMPT'],
    runs.map((run) => [run.run_id, run.trigger, String(run.attempts), run.opened_at, run.last_attempt_at ?? '-']),
  ).join('\n');
}

/** The run, its attempts (who started each, and who forced one and why), then what each attempt asked for. */
export function renderRunReport(report: RunReportAnswer): string {
  const byId = new Map(report.executions.map((execution) => [execution.execution_id, execution]));
  const lines = [...runHeader(report), ''];
  for (let attempt = 1; attempt <= report.attempt; attempt++) {
    const calls = report.calls_by_attempt.find((entry) => entry.attempt === attempt);
    const created = calls?.created ?? [];
    const again = (calls?.asked_again ?? []).filter((id) => !created.includes(id));
    if (attempt > 1) lines.push('');
    lines.push(
      `attempt ${attempt}: ${created.length} new, ${again.length} asked again${created.length + again.length === 0 ? ' (no calls yet)' : ''}`,
    );
    const rows = [
      ...created.map((id) => executionRow(id, byId.get(id), 'new')),
      ...again.map((id) => executionRow(id, byId.get(id), `asked again (of attempt ${byId.get(id)?.attempt ?? '?'})`)),
    ];
    if (rows.length > 0)
      lines.push(...table(['EXECUTION', 'TOOL', 'STATE', 'EFFECT', 'TARGET', 'ACCEPTED', 'IN THIS ATTEMPT'], rows, '  '));
  }
  return lines.join('\n');
}

/** A started attempt; a forced one says who forced it, why, and what it may repeat. */
export function renderReplay(answer: ReplayAnswer): string {
  const started = answer.attempts[answer.attempts.length - 1];
  const lines = [`run ${answer.run_id}: attempt ${answer.attempt} started${started ? ` by ${started.requested_by}` : ''}`];
  if (!answer.forced) {
    lines.push('the replay check: every effect so far is replay-safe (read-only, never happened, or covered by a ledger)');
    return lines.join('\n');
  }
  lines.push(`FORCED by ${answer.forced.by}: ${answer.forced.reason}`);
  if (answer.forced.may_repeat.length === 0) lines.push('the replay check found nothing unsafe: this attempt repeats no effect');
  else lines.push('this attempt may repeat these effects (the replay check refused them):', ...unsafeTable(answer.forced.may_repeat));
  return lines.join('\n');
}

/** What a refused replay (409 replay_unsafe) prints: each unsafe tool with its executions, states and why. */
export function renderRefusedReplay(runId: string, unsafe: readonly UnsafeTool[]): string {
  return [
    `replay of run ${runId} refused: a new attempt would repeat effects that are not replay-safe`,
    ...unsafeTable(unsafe),
    `an operator may start it anyway: onceport runs replay ${runId} --force --reason "<why>" (admin key; audited)`,
  ].join('\n');
}

export function unsafeTable(unsafe: readonly UnsafeTool[]): string[] {
  const rows = unsafe.flatMap((tool) =>
    tool.executions.map((e) => [tool.tool, e.execution_id, String(e.attempt), e.state, `${e.reason}: ${e.why}`]),
  );
  return table(['TOOL', 'EXECUTION', 'ATTEMPT', 'STATE', 'WHY'], rows, '  ');
}

function runHeader(run: RunAnswer): string[] {
  return [
    `run ${run.run_id}  actor ${run.actor}  trigger ${run.trigger}`,
    `  opened      ${run.opened_at}`,
    ...run.attempts.map((attempt) => `  attempt ${String(attempt.attempt).padEnd(3)} ${attemptLine(attempt)}`),
  ];
}

function attemptLine(attempt: RunAttempt): string {
  const started = `started ${attempt.started_at} by ${attempt.requested_by}`;
  if (!attempt.forced) return started;
  const { by, reason, unsafe_count: count } = attempt.forced;
  return `${started} — FORCED by ${by}: ${reason} (${count} unsafe effect${count === 1 ? '' : 's'} it may repeat)`;
}

function executionRow(id: string, execution: RunExecutionAnswer | undefined, relation: string): string[] {
  if (!execution) return [id, '?', '?', '?', '?', '?', relation];
  const { tool, state, effect, target, accepted_at: at } = execution;
  return [id, tool, state, effect, target ?? '-', at, `${relation}${execution.repeats ? `, repeats ${execution.repeats}` : ''}`];
}
