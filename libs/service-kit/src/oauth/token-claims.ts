import { SCOPE_TOKEN } from '@onceport/config';
import type { JWTPayload } from 'jose';

/** What intake takes from a verified access token: who is calling, and with which scopes. */
export interface TokenClaims {
  /** The value of the configured actor claim (e.g. `client_id`), looked up in the actors file. */
  readonly subject: string;
  readonly scopes: readonly string[];
}

/** A subject names one actor in the actors file (`oauth_subjects`, at most 256 characters there too). */
const MAX_SUBJECT_LENGTH = 256;
/** A token naming more scopes than this is not one an operator configured on purpose. */
const MAX_SCOPES = 256;
/** No control characters: the subject ends up in log lines and problem details. */
// eslint-disable-next-line no-control-regex
const SUBJECT = /^[^\x00-\x1f\x7f]+$/;

/**
 * The subject and scopes of a verified token, bounded, or why they cannot be used. Scopes come from
 * `scope` (a space-separated string: RFC 8693 §4.2, RFC 9068) or, failing that, `scp` (a list, as
 * some issuers write it).
 */
export function readTokenClaims(payload: JWTPayload, actorClaim: string): TokenClaims | { readonly problem: string } {
  const subject = payload[actorClaim];
  if (typeof subject !== 'string' || subject.length === 0 || subject.length > MAX_SUBJECT_LENGTH || !SUBJECT.test(subject)) {
    return { problem: `the token's ${actorClaim} claim is missing, or not a string of 1 to ${MAX_SUBJECT_LENGTH} characters` };
  }
  const scopes = scopesOf(payload);
  if (scopes === null) {
    return { problem: `the token's scopes are not a list of at most ${MAX_SCOPES} OAuth scopes (RFC 6749 §3.3)` };
  }
  return { subject, scopes };
}

function scopesOf(payload: JWTPayload): string[] | null {
  const { scope, scp } = payload as { scope?: unknown; scp?: unknown };
  let scopes: unknown[];
  if (scope !== undefined) {
    if (typeof scope !== 'string' || scope.length > MAX_SCOPES * 129) return null;
    scopes = scope.split(' ').filter((s) => s !== '');
  } else if (scp !== undefined) {
    scopes = Array.isArray(scp) ? scp : typeof scp === 'string' ? scp.split(' ').filter((s) => s !== '') : [null];
  } else {
    scopes = [];
  }
  if (scopes.length > MAX_SCOPES || !scopes.every((s): s is string => typeof s === 'string' && SCOPE_TOKEN.test(s))) return null;
  return scopes;
}
