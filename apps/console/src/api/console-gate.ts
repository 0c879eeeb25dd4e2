import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { type ConsoleSession, SessionStore } from '../session/session-store';
import { sessionIdOf } from '../session/session-cookie';
import { sendProblemOf } from './console-http';

/** The header every state-changing call of the console's page carries: another site's form or image cannot send it. */
export const CONSOLE_HEADER = 'x-onceport-console';

/** Who is asking: the signed-in session behind the cookie, or a problem already sent. */
@Injectable()
export class ConsoleGate {
  constructor(@Inject(SessionStore) private readonly sessions: SessionStore) {}

  session(req: IncomingMessage, res: ServerResponse): ConsoleSession | null {
    const session = this.sessions.find(sessionIdOf(req));
    if (session) return session;
    sendProblemOf(res, 401, 'signed_out', 'Sign in', 'Sign in with an admin key to use the console.');
    return null;
  }

  /** A state-changing call: signed in, and sent by the console's own page (SameSite cookie and the custom header). */
  change(req: IncomingMessage, res: ServerResponse): ConsoleSession | null {
    if (req.headers[CONSOLE_HEADER] !== '1') {
      sendProblemOf(
        res,
        403,
        'not_from_console',
        'Not from the console',
        `Changes are accepted only from the console's page (${CONSOLE_HEADER}: 1).`,
      );
      return null;
    }
    return this.session(req, res);
  }
}
