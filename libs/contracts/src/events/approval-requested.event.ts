import { z } from 'zod';
import { ExecutionId, Fingerprint, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';

/** A human must approve this one call (per-use credential, or policy escalation) before it may be dispatched. */
export const ApprovalRequestedData = z.object({
  executionId: ExecutionId,
  approvalId: z.string().min(1),
  /** Shown to the approver next to the canonical record, so they approve the intent, not the wording. */
  fingerprint: Fingerprint,
  policyVersion: z.string().min(1),
  /** Why approval is needed, as a sentence for the approver. */
  reason: z.string().min(1),
  expiresAt: IsoTimestamp,
  requestedAt: IsoTimestamp,
});
export type ApprovalRequestedData = z.infer<typeof ApprovalRequestedData>;
export type ApprovalRequested = Event<'ApprovalRequested', ApprovalRequestedData>;

export const ApprovalRequestedEvent = defineEvent('ApprovalRequested', 1, ApprovalRequestedData);
