import { z } from 'zod';
import { ExecutionId, Fingerprint, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';

/**
 * What the approval stands for (DESIGN.md §6): a new agent process's session grant, or one call of a
 * per-use credential. Granting a `session` approval also grants the process its session.
 */
export const ApprovalKind = z.enum(['session', 'per_use']);
export type ApprovalKind = z.infer<typeof ApprovalKind>;

/** A human must approve this one call (per-use credential, or policy escalation) before it may be dispatched. */
export const ApprovalRequestedData = z.object({
  executionId: ExecutionId,
  approvalId: z.string().min(1),
  /** Shown to the approver next to the canonical record, so they approve the intent, not the wording. */
  fingerprint: Fingerprint,
  policyVersion: z.string().min(1),
  /** Why approval is needed, as a sentence for the approver. */
  reason: z.string().min(1),
  /**
   * Absent in events recorded before approvals named their kind: such an approval was per-use when
   * the execution was accepted as per_use, and a session grant otherwise.
   */
  kind: ApprovalKind.optional(),
  expiresAt: IsoTimestamp,
  requestedAt: IsoTimestamp,
});
export type ApprovalRequestedData = z.infer<typeof ApprovalRequestedData>;
export type ApprovalRequested = Event<'ApprovalRequested', ApprovalRequestedData>;

export const ApprovalRequestedEvent = defineEvent('ApprovalRequested', 1, ApprovalRequestedData);
