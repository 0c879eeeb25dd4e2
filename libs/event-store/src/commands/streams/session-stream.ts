import { type SessionEvent, SessionGrantedEvent, createEvent, parseSessionEvent, sessionStreamId } from '@onceport/contracts';
import { type GrantSession, type SessionGrant, sessionDecider } from '@onceport/domain';
import type { Stream, StreamKind } from '../stream-kind';
import { storedEnvelope } from './stored-envelope';

const sessionKind: StreamKind<GrantSession, SessionGrant | null, SessionEvent> = {
  decider: sessionDecider,
  read: (stored) => parseSessionEvent(storedEnvelope(stored)),
  write: (event, metadata) => createEvent(SessionGrantedEvent, event.data, metadata),
  cached: false,
};

export type SessionStream = Stream<GrantSession, SessionGrant | null, SessionEvent>;

/** The session grant stream of one agent process (`session-<sha256(actor \n process)>`); a grant is correlated by the execution that caused it. */
export function sessionStream(actor: string, agentProcess: string): SessionStream {
  const id = sessionStreamId(actor, agentProcess);
  return { id, correlationId: id, kind: sessionKind };
}
