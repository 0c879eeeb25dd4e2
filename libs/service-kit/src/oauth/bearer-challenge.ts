/** RFC 6750 §3.1 error codes a resource server sends in its challenge. */
export type BearerError = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

export interface BearerChallenge {
  /** The protection space (RFC 6750 §3); default `onceport`, the admin APIs say `onceport-admin`. */
  readonly realm?: string;
  /** The protected resource metadata's URL (RFC 9728 §5.1): how a client finds the authorization server. */
  readonly resourceMetadata?: string | null;
  readonly error?: BearerError;
  /** For a person reading the header; never the token. */
  readonly description?: string;
  /** The scopes the refused operation needs (insufficient_scope). */
  readonly scope?: readonly string[];
}

export const BEARER_REALM = 'onceport';

/**
 * A `WWW-Authenticate: Bearer …` value: the realm, then where the protected resource metadata is,
 * then the error, its description and the scopes needed.
 *
 * @example bearerChallenge({ resourceMetadata, error: 'invalid_token', description: 'the token has expired' })
 * // Bearer realm="onceport", resource_metadata="https://…", error="invalid_token", error_description="the token has expired"
 */
export function bearerChallenge(challenge: BearerChallenge = {}): string {
  const params: [string, string][] = [['realm', challenge.realm ?? BEARER_REALM]];
  if (challenge.resourceMetadata) params.push(['resource_metadata', challenge.resourceMetadata]);
  if (challenge.error) params.push(['error', challenge.error]);
  if (challenge.description) params.push(['error_description', challenge.description]);
  if (challenge.scope && challenge.scope.length > 0) params.push(['scope', challenge.scope.join(' ')]);
  return `Bearer ${params.map(([name, value]) => `${name}="${quotable(value)}"`).join(', ')}`;
}

/**
 * RFC 6750 §3 allows only %x20-21 / %x23-5B / %x5D-7E inside these quoted strings: anything else
 * (a quote, a backslash, a newline that would split the header) is dropped, and the text is bounded.
 */
function quotable(value: string): string {
  return value.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '').slice(0, 500);
}
