import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';

/** "Done, then undone": the effect was reverted outside Onceport. A reverted execution no longer matches retries. */
export const ExecutionRevertedData = z.object({
  executionId: ExecutionId,
  /** Who reverted it (operator identity or service). */
  by: z.string().min(1),
  reason: z.string().min(1),
  revertedAt: IsoTimestamp,
});
export type ExecutionRevertedData = z.infer<typeof ExecutionRevertedData>;
export type ExecutionReverted = Event<'ExecutionReverted', ExecutionRevertedData>;

export const ExecutionRevertedEvent = defineEvent('ExecutionReverted', 1, ExecutionRevertedData);
