/** The intake service's answers about runs (GET/POST /v1/runs…), as the CLI reads them. */

export interface RunSummary {
  readonly run_id: string;
  readonly trigger: string;
  readonly opened_at: string;
  readonly attempts: number;
  readonly last_attempt_at: string | null;
}

export interface ForcedBy {
  readonly by: string;
  readonly reason: string;
  readonly unsafe_count: number;
}

export interface RunAttempt {
  readonly attempt: number;
  readonly started_at: string;
  readonly requested_by: string;
  readonly forced?: ForcedBy | null;
}

export interface RunAnswer {
  readonly run_id: string;
  readonly actor: string;
  readonly trigger: string;
  readonly opened_at: string;
  readonly attempt: number;
  readonly attempts: readonly RunAttempt[];
}

/** One execution of a run: the divergence report's entries and the run report's executions. */
export interface RunExecutionAnswer {
  readonly execution_id: string;
  readonly tool: string;
  /** The attempt that created it. */
  readonly attempt: number;
  readonly state: string;
  readonly effect: string;
  readonly target: string | null;
  readonly accepted_at: string;
  readonly ledger_retention_ends_at?: string | null;
  readonly repeats?: string;
}

export interface RunReportAnswer extends RunAnswer {
  readonly executions: readonly RunExecutionAnswer[];
  readonly calls_by_attempt: readonly {
    readonly attempt: number;
    readonly created: readonly string[];
    readonly asked_again: readonly string[];
  }[];
}

/** An effect the replay check found unsafe, grouped by tool (a 409's `unsafe_tools`, a forced answer's `may_repeat`). */
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

export interface ReplayAnswer extends RunAnswer {
  readonly replay_check: { readonly safe: boolean; readonly unsafe_tools: readonly UnsafeTool[] };
  readonly forced?: { readonly by: string; readonly reason: string; readonly may_repeat: readonly UnsafeTool[] };
}

export interface DivergenceAnswer {
  readonly run_id: string;
  readonly attempts: readonly {
    readonly attempt: number;
    readonly requested_again: readonly RunExecutionAnswer[];
    readonly new: readonly RunExecutionAnswer[];
    readonly not_requested_again: readonly RunExecutionAnswer[];
    readonly still_open: readonly RunExecutionAnswer[];
  }[];
}
