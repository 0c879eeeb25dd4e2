import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';

/** The correlation window closed on an unfinished or undelivered execution: retries no longer attach to it. */
export const CorrelationExpiredData = z.object({
  executionId: ExecutionId,
  expiredAt: IsoTimestamp,
});
export type CorrelationExpiredData = z.infer<typeof CorrelationExpiredData>;
export type CorrelationExpired = Event<'CorrelationExpired', CorrelationExpiredData>;

export const CorrelationExpiredEvent = defineEvent('CorrelationExpired', 1, CorrelationExpiredData);
