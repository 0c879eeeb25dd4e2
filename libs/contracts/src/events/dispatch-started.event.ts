import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';
import { Attempt } from './shared-data';

/**
 * Appended BEFORE any byte leaves for the target (DESIGN.md §4): if the dispatcher dies after this,
 * the reconciler knows something may have been sent. The lease says until when the dispatcher
 * answers for the attempt.
 */
export const DispatchStartedData = z.object({
  executionId: ExecutionId,
  attempt: Attempt,
  dispatcherId: z.string().min(1),
  leaseExpiresAt: IsoTimestamp,
  startedAt: IsoTimestamp,
});
export type DispatchStartedData = z.infer<typeof DispatchStartedData>;
export type DispatchStarted = Event<'DispatchStarted', DispatchStartedData>;

export const DispatchStartedEvent = defineEvent('DispatchStarted', 1, DispatchStartedData);
