import { z } from 'zod';
import { type Event } from '../events/event';
import { defineEvent } from '../events/event-definition';
import { IsoTimestamp } from '../primitives';
import { inSubjectSpace } from '../vault/subject-space';
import { SESSION_SUBJECT_PREFIX } from './session-stream';

/** How a new agent process gets its session grant: by policy at once, or only after a human said yes. */
export const SessionGrantBasis = z.enum(['automatic', 'human']);
export type SessionGrantBasis = z.infer<typeof SessionGrantBasis>;

/**
 * An agent process may make calls under its actor's policy (DESIGN.md §6: per-session
 * authorization). The first event of its session stream; a second grant is never appended.
 */
export const SessionGrantedData = z.object({
  /** The authenticated actor the process runs as. */
  actor: z.string().min(1),
  /** The process (MCP session, runtime process id); the actor itself when the agent named none. */
  agentProcess: z.string().min(1),
  basis: SessionGrantBasis,
  /** `svc:authorization` for an automatic grant, the approver's identity for a human one. */
  grantedBy: z.string().min(1),
  /** The actors file version that allowed it. */
  policyVersion: z.string().min(1),
  grantedAt: IsoTimestamp,
});
export type SessionGrantedData = z.infer<typeof SessionGrantedData>;
export type SessionGranted = Event<'SessionGranted', SessionGrantedData>;

export const SessionGrantedEvent = inSubjectSpace(defineEvent('SessionGranted', 1, SessionGrantedData), SESSION_SUBJECT_PREFIX);
