import { type JWTVerifyGetKey, errors, jwtVerify } from 'jose';
import { SigningKeysUnavailableError } from './jwks-cache';
import { type TokenClaims, readTokenClaims } from './token-claims';

export type TokenVerdict =
  | { readonly ok: true; readonly claims: TokenClaims }
  /** The token is not good for this server: RFC 6750 `invalid_token`, 401. */
  | { readonly ok: false; readonly reason: 'invalid_token'; readonly description: string }
  /** The token cannot be checked right now (the issuer's keys are out of reach): 503, try again. */
  | {
      readonly ok: false;
      readonly reason: 'unavailable';
      readonly description: string;
      /** Why, for the operator's log (URLs, HTTP statuses); not for the caller. */
      readonly detail: string;
    };

/**
 * Access tokens far above a few KiB are not tokens; refusing them before decoding bounds the work a
 * caller can ask for. (Generous: a token with a couple of hundred scopes still fits.)
 */
export const MAX_ACCESS_TOKEN_LENGTH = 8192;
/** A signed JWT in compact form; five parts (an encrypted JWT) are not supported. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/**
 * Asymmetric signatures only: a JWKS publishes public keys, and accepting HS* would let anyone who
 * holds a shared secret — or who tricks a verifier into using a public key as one — mint tokens.
 */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** Does this bearer token have the shape of a signed JWT (and a size worth verifying)? */
export function looksLikeJwt(token: string): boolean {
  return token.length <= MAX_ACCESS_TOKEN_LENGTH && COMPACT_JWS.test(token);
}

/** What a token must show: who issued it, for whom, which claim names the caller, and the clock leeway. */
export interface AccessTokenCheck {
  readonly issuer: string;
  /** The resource (RFC 8707) `aud` must name: intake's resource for agents, the admin audience for operators. */
  readonly audience: string;
  /** The claim whose value is the caller's subject, e.g. `client_id` or `sub`. */
  readonly claim: string;
  readonly clockToleranceSeconds: number;
}

/**
 * Verifies a bearer JWT as OAuth 2.1 §5.2 and RFC 8707 ask of a resource server: signed by a key of
 * the issuer's JWKS, `iss` the configured issuer, `aud` naming the expected audience, `exp` present
 * and not passed (`nbf`, `iat` honoured), within the configured clock tolerance. Descriptions are
 * short, for the `error_description` of a challenge, and never carry the token.
 *
 * @example const verdict = await verifier.verify(token); if (verdict.ok) lookUp(verdict.claims.subject);
 */
export class AccessTokenVerifier {
  constructor(
    private readonly settings: AccessTokenCheck,
    private readonly keys: JWTVerifyGetKey,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async verify(token: string): Promise<TokenVerdict> {
    if (!looksLikeJwt(token)) return invalid(`the token is not a signed JWT of at most ${MAX_ACCESS_TOKEN_LENGTH} characters`);
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: ALGORITHMS,
        clockTolerance: this.settings.clockToleranceSeconds,
        requiredClaims: ['exp'],
        currentDate: this.now(),
      });
      const claims = readTokenClaims(payload, this.settings.claim);
      return 'problem' in claims ? invalid(claims.problem) : { ok: true, claims };
    } catch (error) {
      if (error instanceof SigningKeysUnavailableError) {
        return {
          ok: false,
          reason: 'unavailable',
          description: "the issuer's signing keys cannot be fetched right now; try again shortly",
          detail: error.message,
        };
      }
      if (error instanceof errors.JOSEError) return invalid(this.describe(error));
      throw error;
    }
  }

  private describe(error: errors.JOSEError): string {
    if (error instanceof errors.JWTExpired) return 'the token has expired';
    if (error instanceof errors.JWTClaimValidationFailed) {
      if (error.claim === 'aud') return `the token is not meant for this resource: its aud does not name ${this.settings.audience}`;
      if (error.claim === 'iss') return `the token was not issued by ${this.settings.issuer}`;
      if (error.claim === 'nbf') return 'the token is not valid yet';
      if (error.claim === 'iat') return 'the token was issued in the future';
      if (error.claim === 'exp') return 'the token has no usable exp (expiry) claim';
      return 'a claim of the token is not valid';
    }
    if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed) {
      return 'the token is not signed by a key of the configured issuer';
    }
    if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
      return 'the token is signed with an algorithm this server does not accept';
    }
    return 'the token is not a well-formed signed JWT';
  }
}

function invalid(description: string): TokenVerdict {
  return { ok: false, reason: 'invalid_token', description };
}
