import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerToken } from '@onceport/config';
import type { ActorAuthenticator, AuthenticatedActor } from '../intake-dependencies';
import { sendProblem } from './problem';

/** The caller proven by its bearer API key, or a 401 already sent (null). */
export function authenticateActor(actors: ActorAuthenticator, req: IncomingMessage, res: ServerResponse): AuthenticatedActor | null {
  const token = bearerToken(req.headers.authorization);
  const actor = token ? actors.authenticate(token) : null;
  if (!actor) {
    res.setHeader('WWW-Authenticate', 'Bearer realm="onceport"');
    sendProblem(res, 401, 'unauthorized', 'Unauthorized', 'send Authorization: Bearer <your Onceport API key>');
  }
  return actor;
}
