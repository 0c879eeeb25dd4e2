import type { RawActorsFile } from './actors-file.schema';
import type { Draft } from './checked-source';

/**
 * How intake accepts OAuth 2.1 access tokens beside API keys (the actors file's `oauth:` section):
 * JWTs signed by `issuer`'s keys, carrying `resource` in `aud`, whose `actorClaim` names an actor.
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
}

/** The section as settings, or null when the file has none (API keys only, as before). */
export function oauthSettingsOf(data: RawActorsFile): OAuthSettings | null {
  if (!data.oauth) return null;
  const subjects = new Map<string, string>();
  for (const actor of data.actors) {
    // The first actor wins here; a repeat is reported by checkOAuthSubjects and the file refused.
    for (const subject of actor.oauth_subjects ?? []) if (!subjects.has(subject)) subjects.set(subject, actor.id);
  }
  return {
    issuer: data.oauth.issuer,
    resource: data.oauth.resource,
    jwksUri: data.oauth.jwks_uri ?? null,
    actorClaim: data.oauth.actor_claim,
    requiredScopes: data.oauth.required_scopes,
    clockToleranceSeconds: data.oauth.clock_tolerance_seconds,
    subjects,
  };
}

/** Subjects without a section to verify tokens with, and a subject claimed by two actors. */
export function checkOAuthSubjects(data: RawActorsFile): Draft[] {
  const drafts: Draft[] = [];
  const seen = new Map<string, number>();
  data.actors.forEach((actor, i) => {
    const subjects = actor.oauth_subjects ?? [];
    if (subjects.length > 0 && !data.oauth) {
      drafts.push({
        code: 'oauth_not_configured',
        path: ['actors', i, 'oauth_subjects'],
        found: 'OAuth subjects, but the file has no oauth: section',
        expected: 'an oauth: section (issuer, resource) saying whose tokens to accept, or no oauth_subjects',
      });
    }
    subjects.forEach((subject, j) => {
      const first = seen.get(subject);
      if (first === undefined) return void seen.set(subject, i);
      drafts.push({
        code: 'duplicate_oauth_subject',
        path: ['actors', i, 'oauth_subjects', j],
        found: `${JSON.stringify(subject)}, already a subject of ${data.actors[first]?.id ?? `actors[${first}]`}`,
        expected: 'each OAuth subject to name one actor only',
      });
    });
  });
  return drafts;
}
