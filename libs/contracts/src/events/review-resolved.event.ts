import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';

export const ReviewResolution = z.enum(['applied', 'not_applied']);
export type ReviewResolution = z.infer<typeof ReviewResolution>;

/** A human looked at an execution in `needs_review` and said whether it took effect. */
export const ReviewResolvedData = z.object({
  executionId: ExecutionId,
  resolution: ReviewResolution,
  reviewer: z.string().min(1),
  reason: z.string().min(1),
  resolvedAt: IsoTimestamp,
});
export type ReviewResolvedData = z.infer<typeof ReviewResolvedData>;
export type ReviewResolved = Event<'ReviewResolved', ReviewResolvedData>;

export const ReviewResolvedEvent = defineEvent('ReviewResolved', 1, ReviewResolvedData);
