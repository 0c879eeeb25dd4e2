import type { ExecutionStatus } from '@onceport/contracts';

const ASK_STATE = (id: string): string =>
  `ask for this execution's state with the onceport_execution_status tool (execution_id "${id}") or GET /v1/executions/${id}`;

/** The sentence a model reads first: what happened, and what (not) to do next. */
export function nextStepSentence(
  state: ExecutionStatus,
  executionId: string,
  details: { replay: boolean; targetStatus: number | null; reason: string | null },
): string {
  switch (state) {
    case 'completed':
    case 'completed_result_not_delivered':
      if (details.replay) {
        const how = details.reason ? `; confirmed after the outcome was unknown: ${details.reason}` : '';
        return `Completed earlier (target status ${details.targetStatus ?? 'unknown'}${how}); this is the stored result, nothing was sent again. Do not call again for this intent.`;
      }
      return details.reason
        ? `Completed, confirmed after the outcome was unknown (${details.reason}). Do not call again for this intent.`
        : `Completed: the target answered ${details.targetStatus ?? 'without a status'}. Do not call again for this intent.`;
    case 'failed':
      return `Failed: ${details.reason ?? 'the target refused the call'}. Fix the cause before calling again; a new call starts a new execution.`;
    case 'denied':
      return `Denied: ${details.reason ?? 'not authorized'}. Calling again returns the same denial.`;
    case 'awaiting_approval':
      return `Waiting for a human approval; nothing has been sent. Do not call again: ${ASK_STATE(executionId)}.`;
    case 'dispatched_unknown':
      return `Dispatched, outcome not yet known (${details.reason ?? 'the connection ended before an answer'}): do not call again; ${ASK_STATE(executionId)}.`;
    case 'needs_review':
      return `The outcome could not be verified automatically and waits for a human review. Do not call again; ${ASK_STATE(executionId)}.`;
    case 'expired':
      return 'This execution expired before it finished; a new call starts a new execution.';
    case 'reverted':
      return 'This execution was reverted by an operator; a new call starts a new execution.';
    case 'accepted':
    case 'authorized':
    case 'dispatched':
      return `Still in progress; do not call again: ${ASK_STATE(executionId)}.`;
    default: {
      const _exhaustive: never = state;
      return _exhaustive;
    }
  }
}
