import { type EffectClass, type ExecutionStatus } from '@onceport/contracts';
import { type KnownExecutionState } from '../execution';

/** One execution of a run as the replay check and the divergence report see it. */
export interface RunExecution {
  readonly executionId: string;
  readonly tool: string;
  /** The attempt that created it. */
  readonly attempt: number;
  readonly fingerprint: string;
  readonly target: string | null;
  readonly acceptedAt: string;
  readonly status: ExecutionStatus;
  readonly effectClass: EffectClass;
  readonly ledgerRetentionEndsAt: string | null;
  /** The target applied it: completed, or completed before its correlation window closed undelivered. */
  readonly effectDone: boolean;
  readonly repeats: string | null;
}

const DONE: ReadonlySet<ExecutionStatus> = new Set(['completed', 'completed_result_not_delivered']);

export function runExecutionOf(state: KnownExecutionState, attempt: number): RunExecution {
  const f = state.facts;
  const effectDone = DONE.has(state.status) || (state.status === 'expired' && DONE.has(state.expiry.from));
  return {
    executionId: f.executionId,
    tool: f.tool,
    attempt,
    fingerprint: f.fingerprint,
    target: typeof f.record.target === 'string' ? f.record.target : null,
    acceptedAt: f.acceptedAt,
    status: state.status,
    effectClass: f.effectClass,
    ledgerRetentionEndsAt: f.ledgerRetentionEndsAt,
    effectDone,
    repeats: f.repeats?.executionId ?? null,
  };
}
