import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';

/** A human approved the call; the execution is authorized by that approval. */
export const ApprovalGrantedData = z.object({
  executionId: ExecutionId,
  approvalId: z.string().min(1),
  /** The human who decided (their authenticated identity). */
  approver: z.string().min(1),
  /** The approver's words; may be empty. */
  reason: z.string(),
  decidedAt: IsoTimestamp,
});
export type ApprovalGrantedData = z.infer<typeof ApprovalGrantedData>;
export type ApprovalGranted = Event<'ApprovalGranted', ApprovalGrantedData>;

export const ApprovalGrantedEvent = defineEvent('ApprovalGranted', 1, ApprovalGrantedData);
