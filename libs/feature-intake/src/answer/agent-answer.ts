import type { ExecutionStatus } from '@onceport/contracts';

/** What every answer to an agent carries, over MCP and REST alike. */
export interface AgentAnswer {
  readonly execution_id: string;
  readonly tool: string;
  readonly state: ExecutionStatus;
  /** True when the result was produced for an earlier call and is handed back, not re-sent. */
  readonly replay: boolean;
  /** True when this call attached to an execution an earlier call created. */
  readonly attached: boolean;
  readonly target_status: number | null;
  /** One sentence that tells a model what to do next. */
  readonly next_step: string;
  readonly result: AnswerResult | null;
  readonly denial: { readonly code: string; readonly reason: string } | null;
  /** Present when the call was answered from a completed execution's ledger instead of being sent (DESIGN.md §5). */
  readonly ledger_hit?: true;
  /** Present when the call named a run: the run and the attempt the call belongs to (DESIGN.md §7). */
  readonly run?: { readonly id: string; readonly attempt: number };
  /** Present when the execution repeats an earlier one of the same intent: which, and whether the agent said so. */
  readonly repeats?: { readonly execution_id: string; readonly deliberate: boolean; readonly reason: string | null };
}

export interface AnswerResult {
  readonly content_type: string | null;
  readonly digest: string;
  readonly size: number;
  /** Parsed JSON when the target answered JSON, otherwise text. */
  readonly body: unknown;
}

/** States in which waiting longer would not change what this call should say. */
export const ANSWERABLE_STATES: ReadonlySet<ExecutionStatus> = new Set<ExecutionStatus>([
  'completed_result_not_delivered',
  'completed',
  'failed',
  'denied',
  'awaiting_approval',
  'dispatched_unknown',
  'needs_review',
  'expired',
  'reverted',
]);

/** States whose answer carries a target result that must be recorded as delivered once written. */
export const DELIVERABLE_STATES: ReadonlySet<ExecutionStatus> = new Set<ExecutionStatus>([
  'completed_result_not_delivered',
  'completed',
  'failed',
]);
