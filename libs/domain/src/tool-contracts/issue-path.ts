import type { ContractIssueCode } from './tool-contract-error';

/** A location inside a YAML document: mapping keys and list indexes. */
export type PathSegment = string | number;

/** A problem found before we know which file or line it belongs to. */
export interface IssueDraft {
  readonly code: ContractIssueCode;
  readonly path: readonly PathSegment[];
  readonly found: string;
  readonly expected: string;
}

const PLAIN_KEY = /^[A-Za-z0-9_$-]+$/;

/** `['tools', 0, 'target', 'Content-Type']` → `tools[0].target.Content-Type`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (!PLAIN_KEY.test(segment)) out += `[${JSON.stringify(segment)}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/** The value at `path` inside plain parsed YAML, or undefined when any step is missing. */
export function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let current: unknown = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/** How a found value is shown in a message: short, quoted, and never a whole blob. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (the field is missing)';
  if (value === null) return 'null (an empty value)';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : `a list of ${value.length}`;
  if (typeof value === 'object') return 'a mapping';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

export function draft(code: ContractIssueCode, path: readonly PathSegment[], found: string, expected: string): IssueDraft {
  return { code, path, found, expected };
}
