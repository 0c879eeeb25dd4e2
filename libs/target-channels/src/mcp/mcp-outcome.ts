import type { MCP_RESULT_CONTENT_TYPE } from '@onceport/contracts';

/**
 * What one `tools/call` to an upstream MCP server came to (DESIGN.md §4, §9), in the three kinds
 * of every channel: `observed` → OutcomeObserved (a result, `isError` or not), `failed_before_send`
 * → DispatchFailedBeforeSend, `unknown` → OutcomeUnknown, settled by the effect class table.
 */
export type McpOutcome = McpObserved | McpFailedBeforeSend | McpUnknown;

export interface McpObserved {
  readonly kind: 'observed';
  /** A tool error (`isError: true`) is an outcome the upstream reported, not an unknown one. */
  readonly isError: boolean;
  /** The result document, credential redacted; at most the contract's `max_result_bytes` (see `truncated`). */
  readonly body: Buffer;
  readonly truncated: boolean;
  readonly contentType: typeof MCP_RESULT_CONTENT_TYPE;
  readonly digest: `sha256:${string}`;
}

export type McpFailedBeforeSendCode =
  'channel_closed' | 'connect_failed' | 'connect_refused' | 'refused_by_upstream' | 'missing_credential' | 'bad_arguments';

/** The upstream never received the call, or refused it before applying anything: sending again cannot duplicate it. */
export interface McpFailedBeforeSend {
  readonly kind: 'failed_before_send';
  readonly code: McpFailedBeforeSendCode;
  readonly reason: string;
  readonly retryable: boolean;
}

export type McpUnknownCode = 'connection_lost' | 'process_exited' | 'timeout' | 'upstream_error' | 'task_unfinished';

/** The call was handed to the upstream and no result came back: it may have been applied. */
export interface McpUnknown {
  readonly kind: 'unknown';
  readonly code: McpUnknownCode;
  readonly reason: string;
  /** The task the upstream answered with, not finished (or not read) when the dispatcher stopped waiting: the reconciler polls it. */
  readonly upstreamTaskId?: string;
}

/**
 * One reading of an upstream task for the reconciler (`tasks/get`, then the result of a finished one):
 * `unreachable` — no answer (the probe could not tell); `not_found` — the upstream no longer knows the
 * id (expired, or its state was lost: never "not applied"); `task` — its status and, once it ended
 * with one, the result document (stored as a dispatch result would be).
 */
export type McpTaskProbe =
  | { readonly kind: 'unreachable'; readonly reason: string }
  | { readonly kind: 'not_found'; readonly reason: string }
  | {
      readonly kind: 'task';
      readonly status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
      readonly statusMessage: string | null;
      readonly document: McpObserved | null;
    };
