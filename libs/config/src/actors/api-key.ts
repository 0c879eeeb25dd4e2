import { createHash } from 'node:crypto';

/**
 * The SHA-256 (hex) of an API key, as the actors file stores it. The file never holds a plain key,
 * so a leaked config repository or ConfigMap does not leak access.
 *
 * Make a key and its hash without the key landing in shell history:
 *
 *   node -e "console.log('op_' + require('crypto').randomBytes(32).toString('base64url'))"   # the key: give it to the agent
 *   read -rs KEY && printf %s "$KEY" | node -e "let k='';process.stdin.on('data',d=>k+=d).on('end',()=>console.log(require('crypto').createHash('sha256').update(k).digest('hex')))"
 *
 * (`printf %s "$KEY" | sha256sum` gives the same hex.)
 *
 * @example api_keys_sha256: [hashApiKey('op_…')]
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i;

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 syntax), or null for anything
 * else: a missing header, another scheme, or a malformed token.
 */
export function bearerToken(authorization: string | readonly string[] | undefined | null): string | null {
  if (typeof authorization !== 'string') return null;
  return BEARER.exec(authorization)?.[1] ?? null;
}
