import { type SessionGrantedData, SessionGrantedEvent, parseSessionEvent, sessionStreamId } from '@onceport/contracts';
import { type SessionGrant, sessionGranted } from '@onceport/domain';
import { type EventStore, WrongExpectedVersionError } from '@onceport/event-store';
import { type EventCause, envelopeOf, newEvent } from '../shared/new-event';

export interface LoadedSession {
  readonly grant: SessionGrant | null;
  /** The session stream's version: the expected version of a grant's append. */
  readonly version: number;
}

/** Session grants of agent processes, one stream each (`session-<sha256(actor \n process)>`). */
export class SessionGrants {
  constructor(private readonly store: EventStore) {}

  async load(actor: string, agentProcess: string): Promise<LoadedSession> {
    const stored = await this.store.readStream(sessionStreamId(actor, agentProcess));
    return { grant: sessionGranted(stored.map((event) => parseSessionEvent(envelopeOf(event)))), version: stored.length };
  }

  /**
   * Appends the grant if the stream is still where it was read. False when another writer got
   * there first (another replica granted the same process): the caller reloads and uses that grant.
   */
  async record(grant: SessionGrantedData, expectedVersion: number, cause: EventCause, now: Date): Promise<boolean> {
    try {
      await this.store.append(sessionStreamId(grant.actor, grant.agentProcess), [newEvent(SessionGrantedEvent, grant, cause, now)], { expectedVersion });
      return true;
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) return false;
      throw error;
    }
  }
}
