import type { ServiceLog } from '@onceport/service-kit';
import type { ConsoleEnv } from '../console-env';
import type { SessionStore } from '../session/session-store';
import { ConsoleOAuthClient } from './oauth-client';
import { TokenRefresher } from './token-refresher';

/** Operators' OAuth sign-in, when the console is configured for it. */
export interface ConsoleOAuth {
  /** What the sign-in button says after "Sign in with". */
  readonly name: string;
  readonly client: ConsoleOAuthClient;
  readonly refresher: TokenRefresher;
}

export const CONSOLE_OAUTH = Symbol('CONSOLE_OAUTH');

/** The OAuth sign-in of the console's variables, or null: admin keys only. */
export function consoleOAuthOf(env: ConsoleEnv, sessions: SessionStore, log: ServiceLog): ConsoleOAuth | null {
  const {
    ONCEPORT_CONSOLE_OAUTH_ISSUER: issuer,
    ONCEPORT_CONSOLE_OAUTH_CLIENT_ID: clientId,
    ONCEPORT_CONSOLE_OAUTH_REDIRECT_URL: redirect,
  } = env;
  if (!issuer || !clientId || !redirect) return null;
  const client = new ConsoleOAuthClient({
    ...env,
    ONCEPORT_CONSOLE_OAUTH_ISSUER: issuer,
    ONCEPORT_CONSOLE_OAUTH_CLIENT_ID: clientId,
    ONCEPORT_CONSOLE_OAUTH_REDIRECT_URL: redirect,
  });
  return {
    name: env.ONCEPORT_CONSOLE_OAUTH_NAME ?? new URL(issuer).host,
    client,
    refresher: new TokenRefresher(sessions, (token) => client.refresh(token), log),
  };
}
