import { z } from 'zod';

/** Derived states of an execution (DESIGN.md §4), as named in events such as RetryAttached. */
export const ExecutionStatus = z.enum([
  'accepted',
  'awaiting_approval',
  'authorized',
  'denied',
  'dispatched',
  'dispatched_unknown',
  'completed_result_not_delivered',
  'completed',
  'failed',
  'needs_review',
  'reverted',
  'expired',
]);
export type ExecutionStatus = z.infer<typeof ExecutionStatus>;

/** How a tool's calls are approved (DESIGN.md §6): not at all, once per agent session, or by a human per call. */
export const ApprovalMode = z.enum(['none', 'session', 'per_use']);
export type ApprovalMode = z.infer<typeof ApprovalMode>;

export const Transport = z.enum(['mcp', 'rest']);
export type Transport = z.infer<typeof Transport>;

/**
 * Transport-level correlation of one agent request (DESIGN.md §1): which message answers which.
 * Recorded for audit and to answer on the right stream; never used to deduplicate.
 */
export const RequestCorrelation = z.object({
  transport: Transport,
  jsonRpcId: z.union([z.string(), z.number()]).nullable().optional(),
  sessionId: z.string().nullable().optional(),
  requestId: z.string().nullable().optional(),
});
export type RequestCorrelation = z.infer<typeof RequestCorrelation>;

/** `sha256:<64 hex>` */
export const Sha256Digest = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'expected sha256:<hex>');

/** A target's response body, stored by reference (DESIGN.md §9): events carry where it is and its digest. */
export const ResultReference = z.object({
  ref: z.string().min(1),
  digest: Sha256Digest,
  size: z.int().min(0),
  contentType: z.string().min(1).nullable(),
});
export type ResultReference = z.infer<typeof ResultReference>;

/** Dispatch attempt number: 1 for the first send, +1 for every re-dispatch. */
export const Attempt = z.int().min(1);

/** HTTP status code, or the exit status of a remote command. */
export const TargetStatus = z.int();
