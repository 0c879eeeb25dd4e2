import type { z } from 'zod';
import { describeValue, draft, valueAt, type IssueDraft, type PathSegment } from './issue-path';
import { closestName } from './suggest';

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
};

/** A known-keys list travels from the error map to `toDrafts` inside the message; private to this file. */
const KNOWN_KEYS_TAG = 'known-keys:';

/**
 * Error map for zod's own wording: turns each issue into the "expected" half of our message.
 * Schema-level messages (raw-tool-contract.schema.ts) take precedence over this one.
 */
function expectedText(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return TYPE_WORDS[issue.expected] ?? issue.expected;
    case 'invalid_value':
      return issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${issue.values.map(String).join(' | ')}`;
    case 'too_small':
      return issue.origin === 'string' ? 'non-empty text' : `at least ${String(issue.minimum)}`;
    case 'too_big':
      return `at most ${String(issue.maximum)}`;
    case 'unrecognized_keys': {
      const shape = (issue.inst as { shape?: Record<string, unknown> } | undefined)?.shape;
      return KNOWN_KEYS_TAG + JSON.stringify(Object.keys(shape ?? {}));
    }
    default:
      return undefined;
  }
}

/** Parse `raw` with `schema`, reporting failures as drafts located under `prefix`. */
export function parseWithIssues<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  prefix: readonly PathSegment[],
): { ok: true; value: z.output<S> } | { ok: false; issues: IssueDraft[] } {
  const result = schema.safeParse(raw, { error: expectedText });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, issues: result.error.issues.flatMap((issue) => toDrafts(issue, raw, prefix)) };
}

function toDrafts(issue: z.core.$ZodIssue, raw: unknown, prefix: readonly PathSegment[]): IssueDraft[] {
  const path = issue.path.filter((s): s is PathSegment => typeof s !== 'symbol');
  if (issue.code === 'unrecognized_keys' && issue.message.startsWith(KNOWN_KEYS_TAG)) {
    const known = JSON.parse(issue.message.slice(KNOWN_KEYS_TAG.length)) as string[];
    return issue.keys.map((key) => {
      const hint = closestName(key, known);
      const expected = `one of the known fields ${known.join(' | ')}${hint ? ` — did you mean "${hint}"?` : ''}`;
      return draft('unknown_field', [...prefix, ...path, key], 'an unknown field', expected);
    });
  }
  return [draft('invalid_field', [...prefix, ...path], describeValue(valueAt(raw, path)), issue.message)];
}
