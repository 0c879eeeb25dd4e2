import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';
import { Attempt, ResultReference, TargetStatus } from './shared-data';

/** The target answered. Observed is not delivered: the agent may still not have the result. */
export const OutcomeObservedData = z.object({
  executionId: ExecutionId,
  attempt: Attempt,
  targetStatus: TargetStatus,
  succeeded: z.boolean(),
  /** The stored response; null when the target sent no body. */
  result: ResultReference.nullable(),
  observedAt: IsoTimestamp,
});
export type OutcomeObservedData = z.infer<typeof OutcomeObservedData>;
export type OutcomeObserved = Event<'OutcomeObserved', OutcomeObservedData>;

export const OutcomeObservedEvent = defineEvent('OutcomeObserved', 1, OutcomeObservedData);
