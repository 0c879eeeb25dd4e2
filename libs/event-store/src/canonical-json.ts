import type { JsonValue } from './json';

/**
 * JSON with object keys sorted at every depth and no whitespace, so the same value always hashes
 * the same — including after a round trip through jsonb, which reorders keys.
 */
export function canonicalJsonForHash(value: JsonValue): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`cannot hash non-finite number ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJsonForHash).join(',')}]`;
  const keys = Object.keys(value).sort();
  const parts: string[] = [];
  for (const key of keys) {
    const item = value[key];
    if (item === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJsonForHash(item)}`);
  }
  return `{${parts.join(',')}}`;
}
