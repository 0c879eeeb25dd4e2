import type { ExecutionEventEnvelope, ResultReference } from '@onceport/contracts';
import type { ExecutionCommand } from '@onceport/domain';
import type { AttemptVerdict } from './attempt-verdict';
import { type RetryPolicy, mayRetry, roundFailures } from './retry-policy';

/** A verdict ready for the stream: an observed body has been stored and is now a reference. */
export type RecordableVerdict =
  | Exclude<AttemptVerdict, { readonly kind: 'observed' }>
  | { readonly kind: 'observed'; readonly status: number; readonly succeeded: boolean; readonly result: ResultReference };

/**
 * The command that closes `attempt`. Decided against the freshly loaded stream, so the retry budget
 * is the stream's: a failure the channel calls retryable is recorded as final once the round has
 * used its retries, and the reason says so.
 */
export function outcomeCommand(
  verdict: RecordableVerdict,
  attempt: number,
  events: readonly ExecutionEventEnvelope[],
  policy: RetryPolicy,
  now: Date,
): ExecutionCommand {
  const metadata = { now };
  switch (verdict.kind) {
    case 'observed':
      return {
        type: 'ObserveOutcome',
        data: { attempt, targetStatus: verdict.status, succeeded: verdict.succeeded, result: verdict.result },
        metadata,
      };
    case 'failed_before_send': {
      const earlier = roundFailures(events).count;
      const retryable = verdict.retryable && mayRetry(policy, earlier);
      const reason = verdict.retryable && !retryable ? `${verdict.reason} (gave up after ${earlier + 1} tries)` : verdict.reason;
      return { type: 'FailDispatchBeforeSend', data: { attempt, reason, retryable }, metadata };
    }
    case 'unknown': {
      const { reason, upstreamTaskId } = verdict;
      return {
        type: 'MarkOutcomeUnknown',
        data: upstreamTaskId === undefined ? { attempt, reason } : { attempt, reason, upstreamTaskId },
        metadata,
      };
    }
    default: {
      const _exhaustive: never = verdict;
      return _exhaustive;
    }
  }
}
