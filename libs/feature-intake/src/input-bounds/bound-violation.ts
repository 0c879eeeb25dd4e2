/**
 * One way a request broke a bound: where (a JSON path into the body, or a header name), which
 * bound, and a sentence for a person. Never carries the offending value itself.
 */
export interface BoundViolation {
  readonly path: string;
  readonly bound: string;
  readonly message: string;
}

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly violations: readonly BoundViolation[] };

/** A path step: `.name` for plain keys, `["…"]` (cut to 40 characters) for any other key, `[3]` for an index. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (/^[A-Za-z_$][A-Za-z0-9_$]{0,39}$/.test(key)) return `${parent}.${key}`;
  return `${parent}[${JSON.stringify(safeText(key.slice(0, 40)))}]`;
}

/** Text fit for a path or message: NUL and lone surrogates (never allowed further) shown as U+FFFD. */
export function safeText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** The violations as one line: for `detail` / the JSON-RPC `message`. */
export function describeViolations(violations: readonly BoundViolation[]): string {
  return violations.map((v) => `${v.path}: ${v.message}`).join('; ');
}
