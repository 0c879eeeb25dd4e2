import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';
import { Attempt } from './shared-data';

export const ProbeVerdict = z.enum(['applied', 'not_applied', 'cant_tell']);
export type ProbeVerdict = z.infer<typeof ProbeVerdict>;

/** The reconciler asked the target (or the SSH marker) whether an unknown attempt took effect. */
export const ProbeAttemptedData = z.object({
  executionId: ExecutionId,
  /** The dispatch attempt whose outcome is being probed. */
  attempt: Attempt,
  probeNumber: z.int().min(1),
  verdict: ProbeVerdict,
  /** What the probe saw, for the operator (e.g. "marker exe_… exit=0"). */
  detail: z.string(),
  probedAt: IsoTimestamp,
});
export type ProbeAttemptedData = z.infer<typeof ProbeAttemptedData>;
export type ProbeAttempted = Event<'ProbeAttempted', ProbeAttemptedData>;

export const ProbeAttemptedEvent = defineEvent('ProbeAttempted', 1, ProbeAttemptedData);
