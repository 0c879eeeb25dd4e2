import { type ActorDirectory, type Admin, bearerToken } from '@onceport/config';
import { Problem } from '../problems/problem';

/** The admin behind `Authorization: Bearer <admin key>`, or a 401 problem. The token is never echoed or logged. */
export function requireAdmin(directory: ActorDirectory, authorization: string | undefined): Admin {
  const admin = directory.authenticateAdmin(bearerToken(authorization));
  if (admin) return admin;
  const detail = authorization
    ? 'The bearer token is not an admin key of this installation.'
    : 'Send an admin key as "Authorization: Bearer <key>"; admin keys are listed (as SHA-256 hashes) under admins: in the actors file.';
  throw new Problem(401, 'unauthorized', 'Admin key required', detail, { 'www-authenticate': 'Bearer realm="onceport-admin"' });
}
