import { type JWK, type KeyLike, SignJWT, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { OAuthFetchError } from './bounded-json-fetch';
import { JwksCache, SigningKeysUnavailableError } from './jwks-cache';

const JWKS_URI = 'https://auth.example.com/jwks';
const OPTIONS = { maxAgeMs: 600_000, cooldownMs: 30_000 };

interface SigningKey {
  readonly privateKey: KeyLike;
  readonly jwk: JWK;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const pair = await generateKeyPair('ES256');
  return { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256' } };
}

const tokenBy = (key: SigningKey): Promise<string> =>
  new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'ES256', kid: key.jwk.kid ?? '' }).sign(key.privateKey);

/** A key server the test controls: what it publishes, whether it answers, and how often it was asked. */
function keyServer(published: JWK[]) {
  const server = { published, down: false, fetches: 0, resolves: 0, now: 0 };
  const fetchJson = (url: string): Promise<unknown> => {
    server.fetches += 1;
    if (server.down) return Promise.reject(new OAuthFetchError(`${url} answered HTTP 502, not 200`));
    return Promise.resolve({ keys: server.published });
  };
  const resolveUri = (): Promise<string> => {
    server.resolves += 1;
    return Promise.resolve(JWKS_URI);
  };
  const cache = new JwksCache(resolveUri, fetchJson, { ...OPTIONS, now: () => server.now });
  const verify = (token: string) => jwtVerify(token, cache.getKey);
  return { server, cache, verify };
}

describe('JwksCache', () => {
  let k1: SigningKey;
  let k2: SigningKey;

  beforeAll(async () => {
    [k1, k2] = await Promise.all([signingKey('k1'), signingKey('k2')]);
  });

  it('fetches the keys once (the URI resolved once), however many tokens arrive at the same time', async () => {
    const { server, verify } = keyServer([k1.jwk]);
    const token = await tokenBy(k1);
    await Promise.all([verify(token), verify(token), verify(token)]);
    await verify(token);
    expect(server).toMatchObject({ fetches: 1, resolves: 1 });
  });

  it('picks up a rotated key when a token names an unknown kid — but at most once per cooldown', async () => {
    const { server, verify } = keyServer([k1.jwk]);
    await verify(await tokenBy(k1));
    server.published = [k1.jwk, k2.jwk];
    // Within the cooldown an unknown kid does not fetch: a flood of forged kids costs the issuer nothing.
    server.now = 29_999;
    await expect(verify(await tokenBy(k2))).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    expect(server.fetches).toBe(1);
    server.now = 30_000;
    await expect(verify(await tokenBy(k2))).resolves.toMatchObject({ payload: { sub: 'x' } });
    expect(server.fetches).toBe(2);
  });

  it('fetches again once the keys are older than the max age', async () => {
    const { server, verify } = keyServer([k1.jwk]);
    await verify(await tokenBy(k1));
    server.now = OPTIONS.maxAgeMs;
    await verify(await tokenBy(k1));
    expect(server.fetches).toBe(2);
  });

  it('when the issuer is down at the first token: unavailable, and not asked again within the cooldown', async () => {
    const { server, verify } = keyServer([k1.jwk]);
    server.down = true;
    await expect(verify(await tokenBy(k1))).rejects.toThrow(SigningKeysUnavailableError);
    await expect(verify(await tokenBy(k1))).rejects.toThrow('https://auth.example.com/jwks answered HTTP 502, not 200');
    expect(server.fetches).toBe(1);
    server.down = false;
    server.now = OPTIONS.cooldownMs;
    await expect(verify(await tokenBy(k1))).resolves.toBeDefined();
    expect(server.fetches).toBe(2);
  });

  it('when the issuer goes down later: the keys at hand stay in use, so agents are not locked out by its outage', async () => {
    const { server, verify } = keyServer([k1.jwk]);
    await verify(await tokenBy(k1));
    server.down = true;
    server.now = OPTIONS.maxAgeMs + 1;
    await expect(verify(await tokenBy(k1))).resolves.toBeDefined();
    expect(server.fetches).toBe(2);
  });

  it('refuses a document that is not a key set, or a set of absurd size, as unavailable', async () => {
    for (const document of [{ keys: 'none' }, { keys: Array.from({ length: 101 }, () => k1.jwk) }, []]) {
      const cache = new JwksCache(
        () => Promise.resolve(JWKS_URI),
        () => Promise.resolve(document),
        OPTIONS,
      );
      await expect(jwtVerify(await tokenBy(k1), cache.getKey)).rejects.toThrow(SigningKeysUnavailableError);
    }
  });
});
