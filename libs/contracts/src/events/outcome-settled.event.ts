import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';
import { Attempt, ResultReference, TargetStatus } from './shared-data';

/**
 * How an unknown outcome ended: `completed` (it took effect), `not_applied` (safe to dispatch again),
 * `needs_review` (a human must decide; nothing more is sent), `failed` (it definitely did not work).
 */
export const Settlement = z.enum(['completed', 'not_applied', 'needs_review', 'failed']);
export type Settlement = z.infer<typeof Settlement>;

/** The reconciler settled an unknown outcome. */
export const OutcomeSettledData = z.object({
  executionId: ExecutionId,
  /** The dispatch attempt whose outcome was unknown. */
  attempt: Attempt,
  settlement: Settlement,
  reason: z.string().min(1),
  /** What the probe found the target's status to be, when it could tell. */
  targetStatus: TargetStatus.nullable(),
  result: ResultReference.nullable(),
  settledAt: IsoTimestamp,
});
export type OutcomeSettledData = z.infer<typeof OutcomeSettledData>;
export type OutcomeSettled = Event<'OutcomeSettled', OutcomeSettledData>;

export const OutcomeSettledEvent = defineEvent('OutcomeSettled', 1, OutcomeSettledData);
