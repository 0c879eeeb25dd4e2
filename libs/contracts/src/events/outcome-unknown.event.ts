import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';
import { Attempt } from './shared-data';

/**
 * The request may have reached the target but no answer came (timeout or reset after the body was
 * handed to the socket, SSH drop after the shell started, dispatcher lease expired). A first-class
 * outcome: settled by probes, never by a blind re-send.
 */
export const OutcomeUnknownData = z.object({
  executionId: ExecutionId,
  attempt: Attempt,
  reason: z.string().min(1),
  detectedAt: IsoTimestamp,
});
export type OutcomeUnknownData = z.infer<typeof OutcomeUnknownData>;
export type OutcomeUnknown = Event<'OutcomeUnknown', OutcomeUnknownData>;

export const OutcomeUnknownEvent = defineEvent('OutcomeUnknown', 1, OutcomeUnknownData);
