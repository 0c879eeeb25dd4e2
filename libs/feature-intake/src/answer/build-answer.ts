import type { RunReference } from '@onceport/contracts';
import type { KnownExecutionState } from '@onceport/domain';
import { type ResultStore } from '@onceport/event-store';
import type { AgentAnswer, AnswerResult } from './agent-answer';
import { nextStepSentence } from './next-step';

/** Turns an execution's folded state into the answer an agent gets (the result body read by reference). */
export interface AnswerFor {
  readonly attached: boolean;
  /** The match was a ledger hit: a completed execution answered the call. */
  readonly ledgerHit?: boolean;
  /** The run and attempt the call itself named (an attempt-2 call may be answered by attempt 1's execution). */
  readonly run?: RunReference | null;
}

export async function buildAnswer(state: KnownExecutionState, results: ResultStore, how: AnswerFor): Promise<AgentAnswer> {
  const executionId = state.facts.executionId;
  const targetStatus = state.progress.lastTargetStatus;
  const reason = reasonOf(state);
  const result = await readResult(state, results);
  // A stored result handed to a call that did not cause it is a replay.
  const replay = how.attached && result !== null;
  const repeats = state.facts.repeats ?? null;
  return {
    execution_id: executionId,
    tool: state.facts.tool,
    state: state.status,
    replay,
    attached: how.attached,
    target_status: targetStatus,
    next_step: nextStepSentence(state.status, executionId, { replay, targetStatus, reason }),
    result,
    denial: state.status === 'denied' ? { code: state.denial.code, reason: state.denial.reason } : null,
    ...(how.ledgerHit ? { ledger_hit: true as const } : {}),
    ...(how.run ? { run: { id: how.run.runId, attempt: how.run.attempt } } : {}),
    ...(repeats ? { repeats: { execution_id: repeats.executionId, deliberate: repeats.deliberate, reason: repeats.reason } } : {}),
  };
}

function reasonOf(state: KnownExecutionState): string | null {
  switch (state.status) {
    case 'denied':
      return state.denial.reason;
    case 'failed':
      return state.failure.reason;
    case 'dispatched_unknown':
      return state.unknown.reason;
    case 'needs_review':
      return state.review.reason;
    case 'awaiting_approval':
      return state.approvalRequest.reason;
    case 'completed':
    case 'completed_result_not_delivered':
      // Settled after an unknown outcome (a probe found the effect, or a reviewer said so): say how.
      return state.progress.lastAttemptEnd?.how === 'settled' ? state.progress.lastAttemptEnd.reason : null;
    default:
      return null;
  }
}

async function readResult(state: KnownExecutionState, results: ResultStore): Promise<AnswerResult | null> {
  const reference = state.progress.lastResult;
  if (!reference) return null;
  const stored = await results.get(reference.ref);
  if (!stored) return null;
  const text = stored.body.toString('utf8');
  let body: unknown = text;
  if (reference.contentType?.includes('json')) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text; // a target that says JSON but sends something else: hand it over as text
    }
  }
  return { content_type: reference.contentType, digest: reference.digest, size: reference.size, body };
}
