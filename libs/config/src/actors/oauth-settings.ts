import type { RawActorsFile } from './actors-file.schema';
import type { Draft } from './checked-source';

/** The scope an operator's access token must carry to act as an admin (beside naming one in `admin_claim`). */
export const ADMIN_SCOPE = 'onceport:admin';

/**
 * How the services accept OAuth 2.1 access tokens beside API keys (the actors file's `oauth:`
 * section): JWTs signed by `issuer`'s keys. An agent's token carries `resource` in `aud` and its
 * `actorClaim` names an actor; an operator's token carries `adminAudience` in `aud`, the
 * {@link ADMIN_SCOPE} scope, and its `adminClaim` names an admin.
 */
export interface OAuthSettings {
  /** The `iss` tokens must carry, compared exactly. */
  readonly issuer: string;
  /** This server's resource identifier (RFC 8707): `aud` must contain it; the metadata's `resource`. */
  readonly resource: string;
  /** The issuer's JWKS; null: read `jwks_uri` from the issuer's metadata (RFC 8414, OIDC discovery). */
  readonly jwksUri: string | null;
  /** The claim whose value names the caller, e.g. `sub` or `client_id`. */
  readonly actorClaim: string;
  /** Scopes every token must carry (none by default). */
  readonly requiredScopes: readonly string[];
  readonly clockToleranceSeconds: number;
  /** Each `actorClaim` value an actor lists in `oauth_subjects`, and that actor's id. */
  readonly subjects: ReadonlyMap<string, string>;
  /** The claim whose value names an operator (default `sub`). */
  readonly adminClaim: string;
  /** The `aud` an operator's token must contain (default: `resource`). */
  readonly adminAudience: string;
  /** Each `adminClaim` value an admin lists in `oauth_subjects`, and that admin's id. */
  readonly adminSubjects: ReadonlyMap<string, string>;
}

/** The section as settings, or null when the file has none (API keys only, as before). */
export function oauthSettingsOf(data: RawActorsFile): OAuthSettings | null {
  if (!data.oauth) return null;
  return {
    issuer: data.oauth.issuer,
    resource: data.oauth.resource,
    jwksUri: data.oauth.jwks_uri ?? null,
    actorClaim: data.oauth.actor_claim,
    requiredScopes: data.oauth.required_scopes,
    clockToleranceSeconds: data.oauth.clock_tolerance_seconds,
    subjects: subjectMap(data.actors),
    adminClaim: data.oauth.admin_claim,
    adminAudience: data.oauth.admin_audience ?? data.oauth.resource,
    adminSubjects: subjectMap(data.admins),
  };
}

function subjectMap(
  principals: readonly { readonly id: string; readonly oauth_subjects?: readonly string[] | undefined }[],
): Map<string, string> {
  const subjects = new Map<string, string>();
  // The first one wins here; a repeat is reported by checkOAuthSubjects and the file refused.
  for (const principal of principals)
    for (const subject of principal.oauth_subjects ?? []) if (!subjects.has(subject)) subjects.set(subject, principal.id);
  return subjects;
}

/**
 * Subjects without a section to verify tokens with, and a subject claimed twice: by two actors, by
 * two admins, or — when one claim names both — by an actor and an admin (an agent's token must
 * never be an operator's, nor the other way round).
 */
export function checkOAuthSubjects(data: RawActorsFile): Draft[] {
  const sameClaim = data.oauth !== undefined && data.oauth.actor_claim === data.oauth.admin_claim;
  const actorSeen = new Map<string, string>();
  const drafts = checkList(data, 'actors', actorSeen);
  return [...drafts, ...checkList(data, 'admins', sameClaim ? new Map(actorSeen) : new Map())];
}

function checkList(data: RawActorsFile, list: 'actors' | 'admins', seen: Map<string, string>): Draft[] {
  const drafts: Draft[] = [];
  data[list].forEach((principal, i) => {
    const subjects = principal.oauth_subjects ?? [];
    if (subjects.length > 0 && !data.oauth) {
      drafts.push({
        code: 'oauth_not_configured',
        path: [list, i, 'oauth_subjects'],
        found: 'OAuth subjects, but the file has no oauth: section',
        expected: 'an oauth: section (issuer, resource) saying whose tokens to accept, or no oauth_subjects',
      });
    }
    subjects.forEach((subject, j) => {
      const first = seen.get(subject);
      if (first === undefined) return void seen.set(subject, principal.id);
      drafts.push({
        code: 'duplicate_oauth_subject',
        path: [list, i, 'oauth_subjects', j],
        found: `${JSON.stringify(subject)}, already a subject of ${first}`,
        expected:
          list === 'admins' && first !== undefined && data.actors.some((a) => a.id === first)
            ? 'each OAuth subject to name one identity only: an agent is not an operator (or set admin_claim to another claim than actor_claim)'
            : 'each OAuth subject to name one identity only',
      });
    });
  });
  return drafts;
}
