import type { JWTVerifyGetKey } from 'jose';
import { OAUTH_FETCH_LIMITS, fetchBoundedJson } from './bounded-json-fetch';
import { type FetchJson, discoverJwksUri } from './issuer-metadata';
import { JWKS_CACHE_DEFAULTS, JwksCache, type JwksCacheOptions } from './jwks-cache';

export interface IssuerKeysOptions {
  /** How metadata and keys are read (tests hand in a fake); default: bounded fetches. */
  readonly fetchJson?: FetchJson;
  readonly jwks?: JwksCacheOptions;
}

/**
 * The issuer's signing keys for jose's `jwtVerify`: the configured `jwks_uri`, or the one its
 * metadata names, fetched at the first token (an issuer that is down must not stop a start) and cached.
 *
 * @example const verifier = new AccessTokenVerifier(check, issuerKeys(directory.oauth));
 */
export function issuerKeys(
  settings: { readonly issuer: string; readonly jwksUri: string | null },
  options: IssuerKeysOptions = {},
): JWTVerifyGetKey {
  const fetchJson = options.fetchJson ?? ((url: string) => fetchBoundedJson(url, OAUTH_FETCH_LIMITS));
  const { issuer, jwksUri } = settings;
  return new JwksCache(async () => jwksUri ?? (await discoverJwksUri(issuer, fetchJson)), fetchJson, options.jwks ?? JWKS_CACHE_DEFAULTS)
    .getKey;
}
