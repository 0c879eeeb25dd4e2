import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';
import { Attempt } from './shared-data';

/** The attempt failed before the request was written (connect refused, DNS, TLS): nothing reached the target. */
export const DispatchFailedBeforeSendData = z.object({
  executionId: ExecutionId,
  attempt: Attempt,
  reason: z.string().min(1),
  /** Whether another attempt may succeed (a refused connection may; a missing credential will not). */
  retryable: z.boolean(),
  failedAt: IsoTimestamp,
});
export type DispatchFailedBeforeSendData = z.infer<typeof DispatchFailedBeforeSendData>;
export type DispatchFailedBeforeSend = Event<'DispatchFailedBeforeSend', DispatchFailedBeforeSendData>;

export const DispatchFailedBeforeSendEvent = defineEvent('DispatchFailedBeforeSend', 1, DispatchFailedBeforeSendData);
