/** The services' answers as the console shows them (snake_case, as on the wire). */

export type Target =
  | { readonly channel: 'http'; readonly method: string; readonly url: string }
  | {
      readonly channel: 'ssh';
      readonly host: string;
      readonly port: number;
      readonly user: string;
      readonly argv: readonly string[] | null;
    }
  | { readonly channel: string; readonly [field: string]: unknown };

/** The canonical operation record: sensitive arguments are `{ "$hmac": … }`, generated text is left out. */
export interface OperationRecord {
  readonly actor: string;
  readonly tool: string;
  readonly channel: string;
  readonly target: string;
  readonly credential_ref: string;
  readonly method: string;
  readonly intent_scope: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly [field: string]: unknown;
}

export interface Approval {
  readonly approval_id: string;
  readonly execution_id: string;
  readonly status: 'pending' | 'granted' | 'rejected' | 'expired';
  readonly kind: string;
  readonly actor: string;
  readonly agent_process: string;
  readonly tool: string;
  readonly target: Target;
  readonly record: OperationRecord;
  readonly reason: string;
  readonly requested_at: string;
  readonly expires_at: string;
  readonly decided_by: string | null;
  readonly decided_at: string | null;
  readonly decision_reason: string | null;
  readonly first_dispatched_at: string | null;
  readonly known_outcome: { readonly state: string; readonly target_status: number | null } | null;
  readonly retries_attached: number;
  readonly retry_note: string;
  readonly run: { readonly id: string; readonly attempt: number; readonly trigger: string } | null;
  readonly repeats: {
    readonly execution_id: string;
    readonly deliberate: boolean;
    readonly reason: string | null;
    readonly state?: string;
    readonly attempt?: number | null;
    readonly completed_at?: string | null;
  } | null;
}

export interface Campaign {
  readonly run_id: string;
  readonly tool: string;
  readonly granted: number;
  readonly used: number;
  readonly remaining: number;
  readonly grants: readonly { readonly by: string; readonly reason: string; readonly count: number; readonly granted_at: string }[];
  readonly waiting: readonly Approval[];
}

export interface Review {
  readonly execution_id: string;
  readonly actor: string;
  readonly tool: string;
  readonly record: OperationRecord;
  readonly since: string;
  readonly reason: string;
  readonly attempts: number;
  readonly last_probe: {
    readonly probe_number: number;
    readonly verdict: string;
    readonly detail: string;
    readonly probed_at: string;
  } | null;
}

export interface Vault {
  readonly status: 'locked' | 'unlocked';
  readonly by: string | null;
  readonly reason: string | null;
  readonly since: string | null;
  readonly version: number;
}

export interface RunExecution {
  readonly execution_id: string;
  readonly tool: string;
  readonly attempt: number;
  readonly state: string;
  readonly effect: string;
  readonly target: string;
  readonly accepted_at: string;
  readonly ledger_retention_ends_at: string | null;
  readonly repeats?: unknown;
}

export interface RunReport {
  readonly run_id: string;
  readonly actor: string;
  readonly trigger: string;
  readonly opened_at: string;
  readonly attempt: number;
  readonly attempts: readonly {
    readonly attempt: number;
    readonly started_at: string;
    readonly requested_by: string;
    readonly forced: { readonly by: string; readonly reason: string; readonly unsafe_count: number } | null | false;
  }[];
  readonly executions: readonly RunExecution[];
}

export interface Divergence {
  readonly run_id: string;
  readonly attempts: readonly {
    readonly attempt: number;
    readonly requested_again: readonly RunExecution[];
    readonly new: readonly RunExecution[];
    readonly not_requested_again: readonly RunExecution[];
    readonly still_open: readonly RunExecution[];
  }[];
}

/** One row of the runs list (intake's GET /v1/runs with an admin key: every run). */
export interface RunSummary {
  readonly run_id: string;
  readonly actor: string;
  readonly trigger: string;
  readonly opened_at: string;
  readonly attempts: number;
  readonly last_attempt_at: string;
  readonly last_activity_at: string;
}

export interface RunList {
  readonly runs: readonly RunSummary[];
  readonly next_cursor: string | null;
}

/** A tool a replay would send again, with each execution that makes it unsafe and why. */
export interface UnsafeTool {
  readonly tool: string;
  readonly executions: readonly {
    readonly execution_id: string;
    readonly attempt: number;
    readonly state: string;
    readonly reason: string;
    readonly why: string;
  }[];
}

/** The replay check asked without starting anything. */
export interface ReplayCheck {
  readonly run_id: string;
  readonly attempt: number;
  readonly next_attempt: number;
  readonly safe: boolean;
  readonly unsafe_tools: readonly UnsafeTool[];
}
