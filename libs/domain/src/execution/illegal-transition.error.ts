import { type ExecutionCommandType } from './execution-command';
import { type ExecutionState } from './execution-state';

export type IllegalTransitionCode =
  /** The command does not apply to the execution's current state. */
  | 'illegal_transition'
  /** The stream has no ExecutionAccepted yet. */
  | 'not_accepted'
  /** AcceptExecution on a stream that already holds another execution. */
  | 'already_accepted'
  /** A decision on an approval other than the one pending. */
  | 'approval_mismatch'
  /** A grant after the approval expired. */
  | 'approval_expired'
  /** An approval_expired denial before the approval expired. */
  | 'approval_not_expired'
  /** A policy or session authorization for a tool whose credential needs a human per call. */
  | 'approval_required'
  /** An outcome for an attempt that is not the current one. */
  | 'stale_attempt'
  /** The attempt's outcome is already known; an unknown or a late report cannot overwrite it. */
  | 'outcome_already_known'
  /** A probe number that skips ahead. */
  | 'probe_out_of_order'
  /** A not_applied settlement without the evidence a re-dispatch of this effect class needs. */
  | 'unsafe_redispatch'
  /** A first (non-replay) delivery on an execution already delivered. */
  | 'already_delivered'
  /** Expiry before the correlation window closed. */
  | 'window_still_open'
  /** Expiry of a completed execution whose ledger still answers for it. */
  | 'ledger_retention_running'
  /** Command data out of range (negative window, non-positive lease). */
  | 'invalid_command';

/**
 * A command the execution refuses, as a value with a code the adapters map to JSON-RPC errors or
 * problem details, and a sentence a human can act on.
 */
export class IllegalTransitionError extends Error {
  override readonly name = 'IllegalTransitionError';

  constructor(
    readonly code: IllegalTransitionCode,
    readonly command: ExecutionCommandType,
    readonly status: ExecutionState['status'],
    message: string,
  ) {
    super(message);
  }
}
