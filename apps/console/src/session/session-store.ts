import { randomBytes } from 'node:crypto';

/** How the operator signed in: an admin key, or an access token from the OAuth issuer. */
export type SignedInWith = 'admin_key' | 'oauth';

/** What the console keeps for a signed-in operator: the key or token lives here, server-side, never in the browser. */
export interface ConsoleSession {
  readonly id: string;
  readonly via: SignedInWith;
  /** The admin key (or operator's access token) sent to the services as a bearer token; a refresh replaces the token. */
  credential: string;
  /** When the access token expires (ms since the epoch): the session ends then unless it was refreshed; null for a key. */
  expiresAt: number | null;
  readonly signedInAt: Date;
  lastSeenAt: number;
}

export interface SessionCredential {
  readonly credential: string;
  readonly via?: SignedInWith;
  readonly expiresAt?: number | null;
}

const MAX_SESSIONS = 1_000;

/**
 * Sessions in this process's memory: a restart signs everyone out (they sign in again), and the key
 * or token is never written anywhere. Ids are 256 random bits; idle sessions lapse; past the cap the longest
 * idle one goes, so a flood of sign-ins cannot grow the process.
 */
export class SessionStore {
  private readonly sessions = new Map<string, ConsoleSession>();

  constructor(
    private readonly idleMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  open(given: string | SessionCredential): ConsoleSession {
    const { credential, via = 'admin_key', expiresAt = null } = typeof given === 'string' ? { credential: given } : given;
    this.sweep();
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = [...this.sessions.values()].sort((a, b) => a.lastSeenAt - b.lastSeenAt)[0];
      if (oldest) this.sessions.delete(oldest.id);
    }
    const session: ConsoleSession = {
      id: randomBytes(32).toString('base64url'),
      via,
      credential,
      expiresAt,
      signedInAt: new Date(this.now()),
      lastSeenAt: this.now(),
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session with this id (its idle clock restarted), or null. */
  find(id: string | undefined): ConsoleSession | null {
    if (!id) return null;
    const session = this.sessions.get(id);
    if (!session) return null;
    if (this.lapsed(session)) {
      this.sessions.delete(id);
      return null;
    }
    session.lastSeenAt = this.now();
    return session;
  }

  /** The session, without counting as a use (a background refresh is not the operator at work). */
  peek(id: string): ConsoleSession | null {
    const session = this.sessions.get(id);
    return session && !this.lapsed(session) ? session : null;
  }

  close(id: string | undefined): void {
    if (id) this.sessions.delete(id);
  }

  get size(): number {
    return this.sessions.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, session] of this.sessions) if (this.lapsed(session, now)) this.sessions.delete(id);
  }

  /** Idle too long, or its access token expired (sign in again). */
  private lapsed(session: ConsoleSession, now = this.now()): boolean {
    return now - session.lastSeenAt > this.idleMs || (session.expiresAt !== null && now >= session.expiresAt);
  }
}
