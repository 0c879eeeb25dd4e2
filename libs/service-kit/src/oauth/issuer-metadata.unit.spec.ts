import { OAuthFetchError } from './bounded-json-fetch';
import { discoverJwksUri, issuerMetadataUrls } from './issuer-metadata';

/** Answers from a table of URL → document; anything else is a 404. */
function documents(table: Record<string, unknown>) {
  const asked: string[] = [];
  const fetchJson = (url: string): Promise<unknown> => {
    asked.push(url);
    return url in table ? Promise.resolve(table[url]) : Promise.reject(new OAuthFetchError(`${url} answered HTTP 404, not 200`));
  };
  return { asked, fetchJson };
}

describe('issuer metadata discovery (RFC 8414, OIDC Discovery, in the MCP 2026-07-28 order)', () => {
  it('tries RFC 8414 then OIDC for an issuer without a path, and inserts before appending for one with a path', () => {
    expect(issuerMetadataUrls('https://auth.example.com')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server',
      'https://auth.example.com/.well-known/openid-configuration',
    ]);
    expect(issuerMetadataUrls('https://auth.example.com/tenant1/')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
      'https://auth.example.com/.well-known/openid-configuration/tenant1',
      'https://auth.example.com/tenant1/.well-known/openid-configuration',
    ]);
  });

  it('takes jwks_uri from the first document that answers, falling back past a 404', async () => {
    const { asked, fetchJson } = documents({
      'https://auth.example.com/.well-known/openid-configuration': {
        issuer: 'https://auth.example.com',
        jwks_uri: 'https://keys.example.com/jwks',
      },
    });
    expect(await discoverJwksUri('https://auth.example.com', fetchJson)).toBe('https://keys.example.com/jwks');
    expect(asked).toHaveLength(2);
  });

  it('never uses a document naming another issuer (RFC 8414 §3.3), nor a jwks_uri over cleartext to another host', async () => {
    const { fetchJson } = documents({
      'https://auth.example.com/.well-known/oauth-authorization-server': {
        issuer: 'https://evil.example',
        jwks_uri: 'https://evil.example/jwks',
      },
      'https://auth.example.com/.well-known/openid-configuration': {
        issuer: 'https://auth.example.com',
        jwks_uri: 'http://keys.example.com/jwks',
      },
    });
    const failure = discoverJwksUri('https://auth.example.com', fetchJson);
    await expect(failure).rejects.toThrow(OAuthFetchError);
    await expect(failure).rejects.toThrow(
      'names issuer "https://evil.example", not the configured "https://auth.example.com"; https://auth.example.com/.well-known/openid-configuration has no usable jwks_uri',
    );
    await expect(failure).rejects.toThrow('set oauth.jwks_uri in the actors file to skip discovery');
  });
});
