import { type ExecutionStatus, type Fingerprint } from '@onceport/contracts';
import { type KnownExecutionState } from '../execution';

/** A prior execution as the matcher sees it: one row of intake's executions-by-fingerprint projection. */
export interface RetryCandidate {
  readonly executionId: string;
  readonly fingerprint: Fingerprint;
  readonly actor: string;
  readonly intentScope: string;
  readonly status: ExecutionStatus;
  readonly correlationWindowEndsAt: string;
  readonly ledgerRetentionEndsAt: string | null;
  readonly acceptedAt: string;
}

/** The call being matched. */
export interface IncomingIntent {
  /**
   * The intent's fingerprint under every key of the keyring (current key first, then older ones), so
   * a retry still matches an execution fingerprinted before a key rotation.
   */
  readonly fingerprints: readonly Fingerprint[];
  readonly actor: string;
  readonly intentScope: string;
}

/** The candidate row for a folded execution. */
export function retryCandidateOf(state: KnownExecutionState): RetryCandidate {
  const { executionId, fingerprint, actor, intentScope, correlationWindowEndsAt, ledgerRetentionEndsAt, acceptedAt } = state.facts;
  return { executionId, fingerprint, actor, intentScope, status: state.status, correlationWindowEndsAt, ledgerRetentionEndsAt, acceptedAt };
}
