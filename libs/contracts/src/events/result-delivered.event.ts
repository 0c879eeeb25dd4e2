import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';
import { RequestCorrelation, Transport } from './shared-data';

/** The agent received the result: a different fact from the target having answered (DESIGN.md §4). */
export const ResultDeliveredData = z.object({
  executionId: ExecutionId,
  transport: Transport,
  /** True when the result was answered to a retry or a ledger hit, not to the original request. */
  replay: z.boolean(),
  correlation: RequestCorrelation,
  deliveredAt: IsoTimestamp,
});
export type ResultDeliveredData = z.infer<typeof ResultDeliveredData>;
export type ResultDelivered = Event<'ResultDelivered', ResultDeliveredData>;

export const ResultDeliveredEvent = defineEvent('ResultDelivered', 1, ResultDeliveredData);
