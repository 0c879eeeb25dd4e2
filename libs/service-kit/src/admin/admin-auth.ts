import { ADMIN_SCOPE, type ActorDirectory, type Admin, bearerToken } from '@onceport/config';
import type { ServiceLog } from '../logging/service-logger';
import { looksLikeJwt } from '../oauth/access-token-verifier';
import { bearerChallenge } from '../oauth/bearer-challenge';
import { type IssuerKeysOptions, issuerKeys } from '../oauth/issuer-keys';
import { Problem } from '../problems/problem';
import { ADMIN_REALM, AdminTokenAuthenticator } from './admin-token';

/** The admin behind a request, or the problem to answer with (never carrying the token). */
export type AdminAuthentication = { readonly ok: true; readonly admin: Admin } | { readonly ok: false; readonly problem: Problem };

/** Seconds a 503 asks the client to wait: about the key fetch cooldown. */
const KEYS_RETRY_AFTER_S = 30;

/**
 * Who may use the admin APIs: an admin key of the actors file (hashed, compared in constant time),
 * or — when the file has an `oauth:` section — an operator's access token (see AdminTokenAuthenticator).
 *
 * @example const auth = await adminAuthOf(directory).authenticate(req.headers.authorization); if (!auth.ok) throw auth.problem;
 */
export class AdminAuth {
  private readonly tokens: AdminTokenAuthenticator | null;

  constructor(
    private readonly directory: ActorDirectory,
    options: IssuerKeysOptions & { readonly log?: ServiceLog; readonly now?: () => Date } = {},
  ) {
    const oauth = directory.oauth;
    this.tokens = oauth
      ? new AdminTokenAuthenticator(
          oauth,
          (subject) => directory.adminForOAuthSubject(subject),
          issuerKeys(oauth, options),
          options.log,
          options.now,
        )
      : null;
  }

  async authenticate(authorization: string | undefined): Promise<AdminAuthentication> {
    const token = bearerToken(authorization);
    const keyAdmin = this.directory.authenticateAdmin(token);
    if (keyAdmin) return { ok: true, admin: keyAdmin };
    if (!token) return refused(401, 'unauthorized', this.tokens ? 'Admin credentials required' : 'Admin key required', this.howTo(), null);
    if (!this.tokens || !looksLikeJwt(token)) {
      const detail = this.tokens
        ? 'The bearer token is neither an admin key of this installation nor a signed JWT access token.'
        : 'The bearer token is not an admin key of this installation.';
      return refused(401, 'unauthorized', 'Admin key required', detail, null);
    }
    const verdict = await this.tokens.authenticate(token);
    if (verdict.ok) return verdict;
    const { status, error, description } = verdict;
    if (status === 503) {
      return {
        ok: false,
        problem: new Problem(503, 'token_verification_unavailable', 'Access tokens cannot be verified right now', description, {
          'retry-after': String(KEYS_RETRY_AFTER_S),
        }),
      };
    }
    if (status === 401)
      return refused(
        401,
        'invalid_token',
        'Invalid access token',
        `${description}: sign in again for a fresh token.`,
        'invalid_token',
        description,
      );
    if (error === 'insufficient_scope')
      return refused(403, 'insufficient_scope', 'The access token lacks the admin scope', `${description}.`, error, description);
    return refused(403, 'not_an_admin', 'Not an admin', `${description}.`, null, description);
  }

  private howTo(): string {
    return this.tokens
      ? 'Send an admin key, or an operator\'s access token with the onceport:admin scope, as "Authorization: Bearer …"; admins are listed under admins: in the actors file (key hashes, or oauth_subjects).'
      : 'Send an admin key as "Authorization: Bearer <key>"; admin keys are listed (as SHA-256 hashes) under admins: in the actors file.';
  }
}

function refused(
  status: 401 | 403,
  code: string,
  title: string,
  detail: string,
  error: 'invalid_token' | 'insufficient_scope' | null,
  description?: string,
): AdminAuthentication {
  const challenge = bearerChallenge({
    realm: ADMIN_REALM,
    ...(error ? { error } : {}),
    ...(description ? { description } : {}),
    ...(error === 'insufficient_scope' ? { scope: [ADMIN_SCOPE] } : {}),
  });
  return { ok: false, problem: new Problem(status, code, title, detail, { 'www-authenticate': challenge }) };
}

// One per actors file: its JWKS cache is shared by every admin route of the process.
const byDirectory = new WeakMap<ActorDirectory, AdminAuth>();

/** The admin check of an actors file (made once per directory, so its signing keys are fetched once). */
export function adminAuthOf(directory: ActorDirectory): AdminAuth {
  let auth = byDirectory.get(directory);
  if (!auth) byDirectory.set(directory, (auth = new AdminAuth(directory)));
  return auth;
}

/**
 * The admin behind `Authorization: Bearer <admin key or operator's access token>`, or a 401/403/503
 * problem. The token is never echoed or logged.
 */
export async function requireAdmin(directory: ActorDirectory, authorization: string | undefined): Promise<Admin> {
  const auth = await adminAuthOf(directory).authenticate(authorization);
  if (auth.ok) return auth.admin;
  throw auth.problem;
}
