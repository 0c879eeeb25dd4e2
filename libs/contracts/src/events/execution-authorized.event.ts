import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';

/** On what grounds an execution may be dispatched (DESIGN.md §6). */
export const AuthorizationBasis = z.enum(['policy', 'session_grant', 'approval']);
export type AuthorizationBasis = z.infer<typeof AuthorizationBasis>;

/** The execution may be dispatched. The dispatcher reacts to this event. */
export const ExecutionAuthorizedData = z
  .object({
    executionId: ExecutionId,
    basis: AuthorizationBasis,
    policyVersion: z.string().min(1),
    /** The approval this authorization rests on; set exactly when basis is `approval` (approvals are evidence). */
    approvalId: z.string().min(1).nullable(),
    authorizedAt: IsoTimestamp,
  })
  .refine((data) => (data.basis === 'approval') === (data.approvalId !== null), {
    path: ['approvalId'],
    message: 'approvalId is required when basis is approval, and only then',
  });
export type ExecutionAuthorizedData = z.infer<typeof ExecutionAuthorizedData>;
export type ExecutionAuthorized = Event<'ExecutionAuthorized', ExecutionAuthorizedData>;

export const ExecutionAuthorizedEvent = defineEvent('ExecutionAuthorized', 1, ExecutionAuthorizedData);
