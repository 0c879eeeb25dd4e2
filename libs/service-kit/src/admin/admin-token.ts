import { ADMIN_SCOPE, type Admin, type OAuthSettings } from '@onceport/config';
import type { JWTVerifyGetKey } from 'jose';
import type { ServiceLog } from '../logging/service-logger';
import { AccessTokenVerifier } from '../oauth/access-token-verifier';
import type { BearerError } from '../oauth/bearer-challenge';

/** The protection space of the admin APIs in challenges: an agent's credential is not enough here. */
export const ADMIN_REALM = 'onceport-admin';

/** An operator's token: the admin it proves, or why not, as HTTP will say it. */
export type AdminTokenVerdict =
  | { readonly ok: true; readonly admin: Admin }
  | {
      readonly ok: false;
      readonly status: 401 | 403 | 503;
      /** The RFC 6750 error, or null for a refusal it has no code for (a valid token naming no admin; keys out of reach). */
      readonly error: BearerError | null;
      /** A sentence for the caller; never the token. */
      readonly description: string;
    };

/**
 * Operators' access tokens for the admin APIs: a JWT of the actors file's issuer (signature by its
 * JWKS, `iss`, `exp`), whose `aud` names `oauth.admin_audience`, carrying the `onceport:admin`
 * scope, and whose `oauth.admin_claim` value an admin lists in `oauth_subjects`. The scope keeps an
 * ordinary login of the same person (or an agent's token) from being an admin credential by accident.
 *
 * @example const verdict = await new AdminTokenAuthenticator(directory.oauth, (s) => directory.adminForOAuthSubject(s), keys).authenticate(token);
 */
export class AdminTokenAuthenticator {
  private readonly verifier: AccessTokenVerifier;

  constructor(
    private readonly settings: OAuthSettings,
    private readonly adminOf: (subject: string) => Admin | null,
    keys: JWTVerifyGetKey,
    private readonly log: ServiceLog = () => undefined,
    now?: () => Date,
  ) {
    const check = {
      issuer: settings.issuer,
      audience: settings.adminAudience,
      claim: settings.adminClaim,
      clockToleranceSeconds: settings.clockToleranceSeconds,
    };
    this.verifier = new AccessTokenVerifier(check, keys, now);
  }

  async authenticate(token: string): Promise<AdminTokenVerdict> {
    const verdict = await this.verifier.verify(token);
    if (!verdict.ok) {
      if (verdict.reason === 'unavailable') {
        this.log('warn', "operators' access tokens cannot be verified: the signing keys are out of reach", {
          issuer: this.settings.issuer,
          detail: verdict.detail,
        });
        return { ok: false, status: 503, error: null, description: verdict.description };
      }
      return { ok: false, status: 401, error: 'invalid_token', description: verdict.description };
    }
    const { subject, scopes } = verdict.claims;
    if (!scopes.includes(ADMIN_SCOPE)) {
      return {
        ok: false,
        status: 403,
        error: 'insufficient_scope',
        description: `the token lacks the ${ADMIN_SCOPE} scope an operator's token needs for the admin APIs`,
      };
    }
    const admin = this.adminOf(subject);
    if (!admin) {
      return {
        ok: false,
        status: 403,
        error: null,
        description: `the token is valid, but its ${this.settings.adminClaim} ${JSON.stringify(subject)} is not an admin of this installation (an operator lists it under oauth_subjects of an admin in the actors file)`,
      };
    }
    return { ok: true, admin };
  }
}
