import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';

/** Why an execution was denied; the rungs of the decision ladder (DESIGN.md §6). */
export const DenialCode = z.enum([
  'vault_locked',
  'actor_not_allowed',
  'approval_rejected',
  'approval_expired',
  'policy',
  'cancelled_by_caller',
]);
export type DenialCode = z.infer<typeof DenialCode>;

/** The execution will never be dispatched. A matching retry gets the same denial. */
export const ExecutionDeniedData = z.object({
  executionId: ExecutionId,
  code: DenialCode,
  /** A human sentence, shown to the agent and the operator. */
  reason: z.string().min(1),
  deniedAt: IsoTimestamp,
});
export type ExecutionDeniedData = z.infer<typeof ExecutionDeniedData>;
export type ExecutionDenied = Event<'ExecutionDenied', ExecutionDeniedData>;

export const ExecutionDeniedEvent = defineEvent('ExecutionDenied', 1, ExecutionDeniedData);
