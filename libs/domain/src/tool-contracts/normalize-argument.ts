import type { JsonValue } from '@onceport/contracts';
import type { Normalization } from './tool-contract.types';

/**
 * Applies a contract's declared normalisations (DESIGN.md §2, "known equivalent forms") to a
 * string, or to each string of a list. Other values pass through unchanged.
 *
 * @example normalizeArgument(' Ana@Example.COM ', ['email']) // 'ana@example.com'
 */
export function normalizeArgument(value: JsonValue, steps: readonly Normalization[]): JsonValue {
  if (steps.length === 0) return value;
  if (typeof value === 'string') return steps.reduce(applyStep, value);
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? steps.reduce(applyStep, item) : item));
  return value;
}

function applyStep(text: string, step: Normalization): string {
  switch (step) {
    case 'trim':
      return text.trim();
    case 'lowercase':
      return text.toLowerCase();
    case 'email':
      return text.trim().toLowerCase();
    case 'url':
      return normalizeUrl(text.trim());
    default: {
      const _exhaustive: never = step;
      return _exhaustive;
    }
  }
}

/**
 * WHATWG serialisation (lower-cased scheme and host, default port dropped, `.`/`..` resolved,
 * percent-encoding made uniform). A string that is not a URL is kept as given: whether it may be
 * one is the schema's job (`format: uri`), and the record must stay deterministic either way.
 */
function normalizeUrl(text: string): string {
  try {
    return new URL(text).href;
  } catch {
    return text;
  }
}
