import type { ServiceLog } from '@onceport/service-kit';
import type { SessionStore } from '../session/session-store';
import type { OperatorTokens } from './oauth-client';

/** Ask for a new token this long before the old one expires. */
const AHEAD_MS = 60_000;

/**
 * Keeps an OAuth session's access token fresh when the issuer gave a refresh token: a new one is
 * asked for shortly before expiry. Without a refresh token, or when the issuer refuses, the session
 * simply ends at the token's expiry and the operator signs in again.
 */
export class TokenRefresher {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly sessions: SessionStore,
    private readonly refresh: (refreshToken: string) => Promise<OperatorTokens>,
    private readonly log: ServiceLog,
  ) {}

  schedule(sessionId: string, tokens: OperatorTokens): void {
    this.cancel(sessionId);
    const { refreshToken, expiresAt } = tokens;
    if (!refreshToken || expiresAt === null) return;
    const timer = setTimeout(() => void this.renew(sessionId, refreshToken), Math.max(1_000, expiresAt - Date.now() - AHEAD_MS));
    timer.unref();
    this.timers.set(sessionId, timer);
  }

  cancel(sessionId: string): void {
    clearTimeout(this.timers.get(sessionId));
    this.timers.delete(sessionId);
  }

  stop(): void {
    for (const id of [...this.timers.keys()]) this.cancel(id);
  }

  private async renew(sessionId: string, refreshToken: string): Promise<void> {
    this.timers.delete(sessionId);
    if (!this.sessions.peek(sessionId)) return;
    try {
      const tokens = await this.refresh(refreshToken);
      const session = this.sessions.peek(sessionId);
      if (!session) return;
      session.credential = tokens.accessToken;
      session.expiresAt = tokens.expiresAt;
      this.schedule(sessionId, tokens);
    } catch (error) {
      // The session ends at the old token's expiry: the operator signs in again.
      this.log('warn', "an operator's access token could not be refreshed", { error: String(error).slice(0, 300) });
    }
  }
}
