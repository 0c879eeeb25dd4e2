import { z } from 'zod';

// The optional `oauth:` section of the actors file: intake as an OAuth 2.1 resource server beside
// API keys (MCP authorization, revision 2026-07-28). Tokens are JWTs from one authorization server.
//
//   oauth:
//     issuer: https://auth.example.com          # the `iss` of its tokens, exactly
//     resource: https://onceport.example/mcp    # this server's resource identifier: the `aud` tokens must carry (RFC 8707)
//     jwks_uri: https://auth.example.com/jwks   # optional: else read from the issuer's metadata (RFC 8414 / OIDC discovery)
//     actor_claim: client_id                    # which claim names the caller (default sub)
//     required_scopes: [onceport]               # optional: every token must carry all of them
//     clock_tolerance_seconds: 30               # optional: leeway for exp / nbf / iat between the two clocks
//     admin_claim: sub                          # which claim names an operator (default sub)
//     admin_audience: https://onceport.example/admin  # the `aud` operators' tokens carry (default: resource)
//   actors:
//     - id: agent:deploy-bot
//       oauth_subjects: [deploy-bot]            # values of actor_claim that are this actor
//   admins:
//     - id: ops:alice
//       oauth_subjects: [alice]                 # values of admin_claim that are this admin (tokens need the onceport:admin scope)

/** Long enough for any real issuer or resource URL, short enough to keep a typo from being a blob. */
const MAX_URL_LENGTH = 2048;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const ISSUER_EXPECTED =
  'the authorization server\'s issuer identifier: an https URL without query or fragment, exactly as its tokens carry it in "iss" (http only on a loopback host, for tests)';
const RESOURCE_EXPECTED =
  'this server\'s resource identifier (RFC 8707), e.g. https://onceport.example/mcp: an https URL without query or fragment, exactly as tokens carry it in "aud" (http only on a loopback host, for tests)';
const JWKS_URI_EXPECTED =
  "the URL of the issuer's signing keys (JWKS): an https URL without fragment (http only on a loopback host), or leave it out to read it from the issuer's metadata";
const CLAIM_EXPECTED = 'the name of a top-level token claim, e.g. sub or client_id (letters, digits and _ . : / @ + -, at most 128)';
const SCOPE_EXPECTED = 'a list of OAuth scopes (each 1 to 128 characters of RFC 6749 §3.3: no spaces, no " or \\), at most 32';
const TOLERANCE_EXPECTED = 'whole seconds of clock difference tolerated for exp, nbf and iat: 0 to 300';
const SUBJECT_RULES = 'each 1 to 256 characters, no control characters and no surrounding spaces, at most 64';
export const OAUTH_SUBJECT_EXPECTED = `a list of values of the oauth actor_claim that are this actor (e.g. its OAuth client_id): ${SUBJECT_RULES}`;
export const OAUTH_ADMIN_SUBJECT_EXPECTED = `a list of values of the oauth admin_claim that are this admin (e.g. the operator's sub at the issuer): ${SUBJECT_RULES}`;
const ADMIN_AUDIENCE_EXPECTED =
  'the audience (RFC 8707 resource) operators\' access tokens carry in "aud", e.g. https://onceport.example/admin: an https URL without query or fragment (http only on a loopback host), or leave it out to use resource';

function webUrl(expected: string, { query }: { query: boolean }): z.ZodString {
  return z
    .string({ error: expected })
    .max(MAX_URL_LENGTH, { error: expected })
    .refine((text) => isOAuthWebUrl(text, { query }), { error: expected });
}

/**
 * Where OAuth metadata, keys and tokens may come from: an absolute https URL (http only on a
 * loopback host), without credentials or fragment, and without a query unless `query` allows one.
 */
export function isOAuthWebUrl(text: string, { query }: { query: boolean }): boolean {
  if (text.length > MAX_URL_LENGTH) return false;
  const url = URL.canParse(text) ? new URL(text) : null;
  if (!url || url.username || url.password || text.includes('#')) return false;
  if (!query && text.includes('?')) return false;
  // Tokens and keys travel over this: cleartext only where no network is crossed.
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
}

/** RFC 6749 §3.3 scope-token: 1*( %x21 / %x23-5B / %x5D-7E ). */
export const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;

export const RawOAuth = z.strictObject(
  {
    issuer: webUrl(ISSUER_EXPECTED, { query: false }),
    resource: webUrl(RESOURCE_EXPECTED, { query: false }),
    jwks_uri: webUrl(JWKS_URI_EXPECTED, { query: true }).optional(),
    actor_claim: z
      .string({ error: CLAIM_EXPECTED })
      .regex(/^[A-Za-z0-9_][A-Za-z0-9_.:/@+-]{0,127}$/, { error: CLAIM_EXPECTED })
      .default('sub'),
    required_scopes: z
      .array(z.string({ error: SCOPE_EXPECTED }).regex(SCOPE_TOKEN, { error: SCOPE_EXPECTED }), { error: SCOPE_EXPECTED })
      .max(32, { error: SCOPE_EXPECTED })
      .default([]),
    clock_tolerance_seconds: z
      .number({ error: TOLERANCE_EXPECTED })
      .int({ error: TOLERANCE_EXPECTED })
      .min(0, { error: TOLERANCE_EXPECTED })
      .max(300, { error: TOLERANCE_EXPECTED })
      .default(30),
    admin_claim: z
      .string({ error: CLAIM_EXPECTED })
      .regex(/^[A-Za-z0-9_][A-Za-z0-9_.:/@+-]{0,127}$/, { error: CLAIM_EXPECTED })
      .default('sub'),
    admin_audience: webUrl(ADMIN_AUDIENCE_EXPECTED, { query: false }).optional(),
  },
  {
    error:
      'a mapping with issuer, resource and optionally jwks_uri, actor_claim, required_scopes, clock_tolerance_seconds, admin_claim, admin_audience',
  },
);

/** Token subjects of an actor or an admin; `expected` says which claim they are values of. */
function oauthSubjects(expected: string) {
  return z
    .array(
      z
        .string({ error: expected })
        // No control characters, no space at either end (a claim value is compared exactly).
        // eslint-disable-next-line no-control-regex
        .regex(/^(?!\s)(?![\s\S]*\s$)[^\x00-\x1f\x7f]{1,256}$/, { error: expected }),
      { error: expected },
    )
    .min(1, { error: expected })
    .max(64, { error: expected });
}

/** Values of `actor_claim` that are an actor. */
export const OAuthSubjects = oauthSubjects(OAUTH_SUBJECT_EXPECTED);
/** Values of `admin_claim` that are an admin. */
export const OAuthAdminSubjects = oauthSubjects(OAUTH_ADMIN_SUBJECT_EXPECTED);

export type RawOAuth = z.output<typeof RawOAuth>;
