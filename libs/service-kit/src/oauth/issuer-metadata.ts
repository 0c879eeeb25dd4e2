import { isOAuthWebUrl } from '@onceport/config';
import { OAuthFetchError } from './bounded-json-fetch';

export type FetchJson = (url: string) => Promise<unknown>;

/**
 * Where an issuer's metadata may live, in the order the MCP authorization spec (2026-07-28,
 * "Authorization Server Metadata Discovery") has clients try them: RFC 8414 with the well-known
 * segment inserted before the issuer's path, then OpenID Connect Discovery inserted, then appended.
 */
export function issuerMetadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  if (path === '') {
    return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`];
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * The issuer's `jwks_uri`, read from the first metadata document that answers. A document whose
 * `issuer` is not exactly the configured one is not used (RFC 8414 §3.3): otherwise whoever serves
 * that URL could name keys for another issuer's tokens.
 */
export async function discoverJwksUri(issuer: string, fetchJson: FetchJson): Promise<string> {
  const reasons: string[] = [];
  for (const url of issuerMetadataUrls(issuer)) {
    try {
      return jwksUriIn(await fetchJson(url), issuer, url);
    } catch (error) {
      if (!(error instanceof OAuthFetchError)) throw error;
      reasons.push(error.message);
    }
  }
  throw new OAuthFetchError(
    `no metadata of issuer ${issuer} names its signing keys (${reasons.join('; ')}); set oauth.jwks_uri in the actors file to skip discovery`,
  );
}

function jwksUriIn(document: unknown, issuer: string, url: string): string {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new OAuthFetchError(`${url} is not a metadata document (a JSON object)`);
  }
  const fields = document as Record<string, unknown>;
  if (fields['issuer'] !== issuer) {
    const found = typeof fields['issuer'] === 'string' ? JSON.stringify(fields['issuer'].slice(0, 200)) : 'no issuer';
    throw new OAuthFetchError(`${url} names issuer ${found}, not the configured ${JSON.stringify(issuer)}`);
  }
  const jwksUri = fields['jwks_uri'];
  if (typeof jwksUri !== 'string' || !isOAuthWebUrl(jwksUri, { query: true })) {
    throw new OAuthFetchError(`${url} has no usable jwks_uri (an https URL, or http on a loopback host)`);
  }
  return jwksUri;
}
