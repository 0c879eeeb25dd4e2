import { type JWTPayload, type KeyLike, SignJWT, createLocalJWKSet, exportJWK, generateKeyPair, generateSecret } from 'jose';
import { AccessTokenVerifier, MAX_ACCESS_TOKEN_LENGTH } from './access-token-verifier';
import { SigningKeysUnavailableError } from './jwks-cache';

const ISSUER = 'https://auth.example.com';
const RESOURCE = 'https://onceport.example/mcp';
const NOW = new Date('2026-12-01T12:00:00Z');
const epoch = (date: Date): number => Math.floor(date.getTime() / 1000);

describe('AccessTokenVerifier', () => {
  let issuerKey: KeyLike;
  let verifier: AccessTokenVerifier;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    issuerKey = pair.privateKey;
    const keys = createLocalJWKSet({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }] });
    verifier = new AccessTokenVerifier(
      { issuer: ISSUER, audience: RESOURCE, claim: 'client_id', clockToleranceSeconds: 30 },
      keys,
      () => NOW,
    );
  });

  async function token(
    claims: JWTPayload = {},
    { key = issuerKey, alg = 'ES256', kid = 'k1' }: { key?: KeyLike | Uint8Array; alg?: string; kid?: string } = {},
  ): Promise<string> {
    return new SignJWT({ iss: ISSUER, aud: RESOURCE, client_id: 'deploy-bot', iat: epoch(NOW), exp: epoch(NOW) + 300, ...claims })
      .setProtectedHeader({ alg, kid, typ: 'at+jwt' })
      .sign(key);
  }

  it('given a token of the issuer for this resource, then its subject (the actor claim) and scopes', async () => {
    expect(await verifier.verify(await token({ scope: 'onceport onceport:tool:x' }))).toEqual({
      ok: true,
      claims: { subject: 'deploy-bot', scopes: ['onceport', 'onceport:tool:x'] },
    });
    // An aud list naming this resource among others is for this resource too (RFC 7519 §4.1.3).
    expect(await verifier.verify(await token({ aud: ['https://other.example', RESOURCE] }))).toMatchObject({ ok: true });
  });

  it.each([
    ['expired beyond the tolerance', { exp: epoch(NOW) - 31 }, 'the token has expired'],
    [
      'for another resource',
      { aud: 'https://other.example/mcp' },
      `the token is not meant for this resource: its aud does not name ${RESOURCE}`,
    ],
    ['without aud', { aud: undefined }, `the token is not meant for this resource: its aud does not name ${RESOURCE}`],
    ['from another issuer', { iss: 'https://evil.example' }, `the token was not issued by ${ISSUER}`],
    ['not valid yet', { nbf: epoch(NOW) + 120 }, 'the token is not valid yet'],
    ['without exp', { exp: undefined }, 'the token has no usable exp (expiry) claim'],
    ['without the actor claim', { client_id: undefined }, "the token's client_id claim is missing, or not a string of 1 to 256 characters"],
    [
      'with an actor claim too long',
      { client_id: 'x'.repeat(257) },
      "the token's client_id claim is missing, or not a string of 1 to 256 characters",
    ],
    [
      'with a scope that is no scope',
      { scope: 'a "quoted" scope' },
      "the token's scopes are not a list of at most 256 OAuth scopes (RFC 6749 §3.3)",
    ],
  ])('given a token %s, then invalid_token with the reason', async (_case, claims, description) => {
    expect(await verifier.verify(await token(claims as JWTPayload))).toEqual({ ok: false, reason: 'invalid_token', description });
  });

  it('tolerates the configured clock difference: expired 29 s ago is still good at 30 s tolerance', async () => {
    expect(await verifier.verify(await token({ exp: epoch(NOW) - 29 }))).toMatchObject({ ok: true });
  });

  it('refuses tokens signed by another key, under an unknown kid, or with a symmetric or no algorithm', async () => {
    const other = (await generateKeyPair('ES256')).privateKey;
    const notSigned = 'the token is not signed by a key of the configured issuer';
    expect(await verifier.verify(await token({}, { key: other }))).toMatchObject({ description: notSigned });
    expect(await verifier.verify(await token({}, { key: other, kid: 'unknown' }))).toMatchObject({ description: notSigned });
    const hs = await token({}, { key: await generateSecret('HS256'), alg: 'HS256' });
    expect(await verifier.verify(hs)).toMatchObject({ ok: false, reason: 'invalid_token' });
    const [, payload] = (await token()).split('.');
    const unsigned = `${Buffer.from('{"alg":"none","kid":"k1"}').toString('base64url')}.${payload}.`;
    expect(await verifier.verify(unsigned)).toMatchObject({ ok: false, reason: 'invalid_token' });
  });

  it('refuses what is not a compact signed JWT, or too long, before decoding anything', async () => {
    const shape = `the token is not a signed JWT of at most ${MAX_ACCESS_TOKEN_LENGTH} characters`;
    for (const bad of ['op_an-api-key', 'a.b', 'a.b.c.d.e', `${'a'.repeat(MAX_ACCESS_TOKEN_LENGTH)}.b.c`]) {
      expect(await verifier.verify(bad)).toEqual({ ok: false, reason: 'invalid_token', description: shape });
    }
    expect(await verifier.verify('e30.e30.e30')).toEqual({
      ok: false,
      reason: 'invalid_token',
      description: 'the token is not a well-formed signed JWT',
    });
  });

  it('given keys out of reach, then unavailable (503), the reason kept for the log only', async () => {
    const down = new AccessTokenVerifier({ issuer: ISSUER, audience: RESOURCE, claim: 'sub', clockToleranceSeconds: 0 }, () =>
      Promise.reject(new SigningKeysUnavailableError('https://auth.example.com/jwks answered HTTP 502, not 200')),
    );
    expect(await down.verify(await token())).toEqual({
      ok: false,
      reason: 'unavailable',
      description: "the issuer's signing keys cannot be fetched right now; try again shortly",
      detail: 'https://auth.example.com/jwks answered HTTP 502, not 200',
    });
  });
});
