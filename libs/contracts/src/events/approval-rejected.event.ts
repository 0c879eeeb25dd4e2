import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';

/** A human rejected the call; the execution is denied. */
export const ApprovalRejectedData = z.object({
  executionId: ExecutionId,
  approvalId: z.string().min(1),
  /** The human who decided (their authenticated identity). */
  approver: z.string().min(1),
  /** The approver's words; may be empty. */
  reason: z.string(),
  decidedAt: IsoTimestamp,
});
export type ApprovalRejectedData = z.infer<typeof ApprovalRejectedData>;
export type ApprovalRejected = Event<'ApprovalRejected', ApprovalRejectedData>;

export const ApprovalRejectedEvent = defineEvent('ApprovalRejected', 1, ApprovalRejectedData);
