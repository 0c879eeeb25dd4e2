/**
 * How to answer a retry from the state of the execution it attached to (DESIGN.md §5).
 * - `continue`: accepted or authorized, not yet sent; carry on without a second approval.
 * - `pending_approval`: the same pending approval; no new one is opened.
 * - `pending_verification`: dispatched or unknown; a probe settles it, never a blind re-send.
 * - `replay_stored_result`: completed but undelivered; answer the stored result, marked as a replay.
 * - `same_denial`: denied; the same denial again.
 * - `awaiting_review`: in review; a human decides, nothing is sent again.
 */
export type AttachAnswer =
  'continue' | 'pending_approval' | 'pending_verification' | 'replay_stored_result' | 'same_denial' | 'awaiting_review';

/** Why a prior execution with the same fingerprint did not take the call. */
export type NoMatchReason =
  | 'actor_differs'
  | 'intent_scope_differs'
  | 'outside_correlation_window'
  | 'completed_without_ledger'
  | 'outside_ledger_retention'
  | 'failed'
  | 'reverted'
  | 'expired';

export type RetryMatch =
  | { readonly kind: 'attach'; readonly executionId: string; readonly answer: AttachAnswer }
  /** A completed execution inside its ledger retention: return the stored result as a replay; send nothing. */
  | { readonly kind: 'ledger_hit'; readonly executionId: string }
  /** A new execution. `reasons` lists same-fingerprint executions that were passed over, and why, for the audit. */
  | { readonly kind: 'new'; readonly reasons: readonly { readonly executionId: string; readonly reason: NoMatchReason }[] };
