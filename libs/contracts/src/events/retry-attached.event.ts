import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';
import { ExecutionStatus, RequestCorrelation } from './shared-data';

/** A later request matched this execution (DESIGN.md §5) and was answered from it instead of becoming a new one. */
export const RetryAttachedData = z.object({
  executionId: ExecutionId,
  /** The retry's own transport correlation: the answer goes there. */
  correlation: RequestCorrelation,
  agentProcess: z.string().min(1).nullable(),
  clientIdempotencyKey: z.string().min(1).nullable(),
  /** The state the retry was answered from, so the audit shows what the agent was told. */
  stateAtAttach: ExecutionStatus,
  attachedAt: IsoTimestamp,
});
export type RetryAttachedData = z.infer<typeof RetryAttachedData>;
export type RetryAttached = Event<'RetryAttached', RetryAttachedData>;

export const RetryAttachedEvent = defineEvent('RetryAttached', 1, RetryAttachedData);
