import type { JsonValue } from '@onceport/contracts';
import { parseTemplate } from '@onceport/domain';
import { failedBeforeSend, type FailedBeforeSend } from './http-outcome';

export interface RenderedUrl {
  readonly origin: string;
  /** Path and query exactly as written on the request line. */
  readonly path: string;
  /** Arguments consumed by placeholders (so they stay out of a JSON body). */
  readonly used: ReadonlySet<string>;
}

/**
 * Builds the request target from the contract's origin and path template (agents never choose
 * URLs, DESIGN.md §9). Each placeholder is filled with `encodeURIComponent` of its value, so an
 * argument can never add a path segment, a query or a fragment; the result must still parse to
 * the same origin and the same path (no dot-segment collapsing), otherwise it is refused.
 */
export function renderUrl(
  origin: string,
  template: string,
  values: Readonly<Record<string, JsonValue | undefined>>,
): RenderedUrl | FailedBeforeSend {
  const parsed = parseTemplate(template);
  if (parsed.errors.length > 0) {
    return failedBeforeSend('url_refused', `the path template is malformed: ${parsed.errors.join('; ')}`, false);
  }
  let path = '';
  for (const part of parsed.parts) {
    if ('literal' in part) {
      path += part.literal;
      continue;
    }
    const value = placeholderText(values[part.argument]);
    // The value is never quoted back: it may be a sensitive identity argument.
    if (value === null)
      return failedBeforeSend('bad_arguments', `argument "${part.argument}" is missing or not a string, number or boolean`, false);
    if (value === '')
      return failedBeforeSend('bad_arguments', `argument "${part.argument}" is empty (it would change the path's shape)`, false);
    path += encodeURIComponent(value);
  }
  return checkOnOrigin(origin, path, new Set(parsed.placeholders));
}

function placeholderText(value: JsonValue | undefined): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (typeof value === 'boolean') return String(value);
  return null;
}

function checkOnOrigin(origin: string, path: string, used: ReadonlySet<string>): RenderedUrl | FailedBeforeSend {
  if (!path.startsWith('/') || path.startsWith('//')) {
    return failedBeforeSend('url_refused', 'the rendered path does not start with a single "/"', false);
  }
  let url: URL;
  try {
    url = new URL(path, origin);
  } catch {
    return failedBeforeSend('url_refused', 'the rendered path is not a valid URL path', false);
  }
  if (url.origin !== origin) {
    return failedBeforeSend('url_refused', `the rendered URL left the contract's origin ${origin}`, false);
  }
  // `..` (or `%2e%2e`) from an argument would be collapsed by the URL parser and reach another
  // resource on the same origin: the request line must be exactly what the template produced.
  if (url.pathname + url.search !== path) {
    return failedBeforeSend('url_refused', 'the rendered path is not in normal form (dot segments or unencoded characters)', false);
  }
  return { origin, path, used };
}
