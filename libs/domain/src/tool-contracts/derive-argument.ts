import { createHash } from 'node:crypto';
import type { DerivationKind, JsonSchemaNode } from './tool-contract.types';

export type Derivation = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly problem: string };

// RFC 4648 §4 alphabet, padding optional. Line breaks and spaces (MIME wrapping) are not data.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64_WHITESPACE = /[\t\n\r ]/g;

/**
 * What the gateway computes for a `derived` argument from its source's text (DESIGN.md §2): the
 * record holds this, never the agent's claim. Pure and bounded: a file is hashed, never copied.
 *
 * - `sha256`: `sha256:<64 hex>` over the source's bytes — base64-decoded when its schema says
 *   `contentEncoding: base64`, otherwise the UTF-8 bytes of the text.
 * - `normalized_url`: see `normalizedUrl`.
 *
 * @example deriveArgument('sha256', 'aGVsbG8=', { type: 'string', contentEncoding: 'base64' }) // { ok: true, value: 'sha256:2cf24d…' }
 */
export function deriveArgument(kind: DerivationKind, source: string, property: JsonSchemaNode | undefined): Derivation {
  switch (kind) {
    case 'sha256': {
      const bytes = sourceBytes(source, property);
      if (!bytes) return { ok: false, problem: 'is not base64 (RFC 4648: A–Z a–z 0–9 + /, optional = padding)' };
      return { ok: true, value: `sha256:${createHash('sha256').update(bytes).digest('hex')}` };
    }
    case 'normalized_url': {
      const url = normalizedUrl(source);
      return url === null ? { ok: false, problem: 'is not an absolute URL (e.g. https://example.com/path)' } : { ok: true, value: url };
    }
    default: {
      const _exhaustive: never = kind;
      return _exhaustive;
    }
  }
}

/**
 * Whether an agent's own value for a derived argument says the same as the gateway's: a digest as
 * `<hex>` or `sha256:<hex>` in either case; a URL that normalises to the same URL.
 */
export function claimAgrees(kind: DerivationKind, claim: string, derived: string): boolean {
  if (kind === 'sha256') {
    const hex = claim.trim().toLowerCase();
    return (hex.startsWith('sha256:') ? hex : `sha256:${hex}`) === derived;
  }
  return normalizedUrl(claim) === derived;
}

/**
 * One spelling per resource, by the WHATWG URL parser (never by hand): scheme and host lower-cased,
 * the default port dropped, `.`/`..` segments resolved, percent-encoding made uniform — then the
 * fragment removed (it never reaches the server) and the query parameters sorted by name (stable:
 * repeated names keep their order). Null for a text that is not an absolute URL.
 *
 * @example normalizedUrl('HTTPS://Example.COM:443/a/../b?z=1&a=2#top') // 'https://example.com/b?a=2&z=1'
 */
export function normalizedUrl(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  url.hash = '';
  // An empty query (`?` alone) reads as '' but still serialises: setting '' drops it.
  if (url.search === '') url.search = '';
  else url.searchParams.sort();
  return url.href;
}

function sourceBytes(source: string, property: JsonSchemaNode | undefined): Buffer | null {
  if (property?.['contentEncoding'] !== 'base64') return Buffer.from(source, 'utf8');
  const compact = source.replace(BASE64_WHITESPACE, '');
  if (!BASE64.test(compact) || compact.replace(/=+$/, '').length % 4 === 1) return null;
  if (compact.includes('=') && compact.length % 4 !== 0) return null;
  return Buffer.from(compact, 'base64');
}
