import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BearerRefusal, authenticateBearer, refusalHeaders } from '../auth/authenticate-bearer';
import type { AuthenticatedActor, IntakeDependencies } from '../intake-dependencies';
import { sendProblem } from './problem';

/** The caller proven by its bearer API key or access token, or the refusal already sent (null). */
export async function authenticateActor(
  deps: Pick<IntakeDependencies, 'actors' | 'oauth'>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<AuthenticatedActor | null> {
  const auth = await authenticateBearer(deps, req);
  if (auth.ok) return auth.actor;
  sendRefusal(res, auth);
  return null;
}

/** A credential refusal as problem details, with its `WWW-Authenticate` challenge. */
export function sendRefusal(res: ServerResponse, refusal: BearerRefusal): void {
  sendProblem(res, refusal.status, refusal.code, refusal.title, refusal.message, {}, refusalHeaders(refusal));
}
