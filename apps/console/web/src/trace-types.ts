/** Intake's admin trace of one execution, as the execution page shows it (snake_case, as on the wire). */

export interface TimelineEvent {
  readonly stream_version: number;
  readonly global_position: string;
  readonly at: string;
  readonly type: string;
  readonly summary: string | null;
  readonly parse_error: string | null;
  readonly trace_id: string | null;
  readonly data: Readonly<Record<string, unknown>> | null;
}

export interface ExecutionTrace {
  readonly execution_id: string;
  readonly state: string;
  readonly event_count: number;
  readonly timeline_capped: boolean;
  readonly trace_ids: readonly string[];
  readonly timeline: readonly TimelineEvent[];
  readonly later_executions: readonly {
    readonly execution_id: string;
    readonly agent_process: string | null;
    readonly client_idempotency_key: string | null;
    readonly accepted_at: string;
  }[];
  readonly answers: {
    readonly agent_processes: { readonly answer: string; readonly processes: readonly string[]; readonly sentence: string };
    readonly first_call_authorized_and_dispatched: {
      readonly authorized: boolean;
      readonly dispatched: boolean;
      readonly sentence: string;
    };
    readonly target_answered: { readonly answer: string; readonly target_status: number | null; readonly sentence: string };
    readonly delivery_failed_after_completion: { readonly answer: string; readonly sentence: string };
    readonly later_calls: {
      readonly attached: number;
      readonly idempotency_keys: readonly string[];
      readonly redispatch_attempts: number;
      readonly new_executions: readonly string[];
      readonly sentence: string;
    };
  };
}
