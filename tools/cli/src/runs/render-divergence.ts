import type { DivergenceAnswer, RunExecutionAnswer } from './run-answers';
import { table } from './text-table';

type AttemptDivergence = DivergenceAnswer['attempts'][number];

/** Per attempt, the four lists in a person's words; what an earlier attempt did and this one did not ask for is never left out. */
export function renderDivergence(report: DivergenceAnswer): string {
  const lines = [`run ${report.run_id}: divergence by attempt`];
  for (const attempt of report.attempts) lines.push('', `attempt ${attempt.attempt}`, ...attemptLines(attempt));
  return lines.join('\n');
}

function attemptLines(attempt: AttemptDivergence): string[] {
  return [
    ...section('requested again (hits on an earlier attempt)', attempt.requested_again),
    ...section('new in this attempt', attempt.new),
    ...section('done in an earlier attempt but NOT requested again', attempt.not_requested_again),
    ...section('still open from earlier attempts (outcome unknown or in review)', attempt.still_open),
  ];
}

function section(title: string, executions: readonly RunExecutionAnswer[]): string[] {
  if (executions.length === 0) return [`  ${title}: none`];
  return [
    `  ${title}: ${executions.length}`,
    ...table(
      ['EXECUTION', 'TOOL', 'FROM ATTEMPT', 'STATE', 'TARGET', 'ACCEPTED AT'],
      executions.map((e) => [e.execution_id, e.tool, String(e.attempt), e.state, e.target ?? '-', e.accepted_at]),
      '    ',
    ),
  ];
}
