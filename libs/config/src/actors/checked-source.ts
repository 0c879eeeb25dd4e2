import { type ActorsFileIssue, type ActorsFileIssueCode, actorsFileIssue } from './actors-file-error';
import { type PathSegment, formatPath, readYaml, valueAt } from '@onceport/domain';
import { type z } from 'zod';

/** A problem found before it is given its file and line. */
export interface Draft {
  readonly code: ActorsFileIssueCode;
  readonly path: readonly PathSegment[];
  readonly found: string;
  readonly expected: string;
}

/** A parsed, schema-checked YAML file that can still place a path on a line. */
export interface CheckedSource<T> {
  readonly file: string;
  readonly data: T;
  readonly lineOf: (path: readonly PathSegment[]) => number | null;
}

export type Checked<T> =
  | { readonly source: CheckedSource<T>; readonly issues: readonly [] }
  | { readonly source: null; readonly issues: readonly ActorsFileIssue[] };

/**
 * Reads YAML and checks it against `schema`. Syntax errors first (the rest would be noise), then
 * every schema problem, each with file, path, found, expected and line.
 */
export function readChecked<S extends z.ZodType>(
  text: string,
  file: string,
  schema: S,
  knownFieldsAt: (path: readonly PathSegment[]) => readonly string[],
): Checked<z.output<S>> {
  const yaml = readYaml(text);
  if (yaml.syntaxProblems.length > 0) {
    return {
      source: null,
      issues: yaml.syntaxProblems.map((p) =>
        actorsFileIssue({
          code: 'yaml_syntax',
          file,
          path: '',
          line: p.line,
          found: `a YAML syntax error at column ${p.column} (${p.message})`,
          expected: 'valid YAML: check indentation, quoting and duplicate keys',
        }),
      ),
    };
  }
  const parsed = schema.safeParse(yaml.data);
  const source = { file, data: parsed.data, lineOf: yaml.lineOf };
  if (!parsed.success)
    return {
      source: null,
      issues: locate(
        source,
        parsed.error.issues.flatMap((issue) => toDrafts(issue, yaml.data, knownFieldsAt)),
      ),
    };
  return { source: source as CheckedSource<z.output<S>>, issues: [] };
}

/** Gives each draft its file and line, in line order. */
export function locate(source: Pick<CheckedSource<unknown>, 'file' | 'lineOf'>, drafts: readonly Draft[]): ActorsFileIssue[] {
  return drafts
    .map((d) =>
      actorsFileIssue({
        code: d.code,
        file: source.file,
        path: formatPath(d.path),
        line: source.lineOf(d.path),
        found: d.found,
        expected: d.expected,
      }),
    )
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

function toDrafts(issue: z.core.$ZodIssue, root: unknown, knownFieldsAt: (path: readonly PathSegment[]) => readonly string[]): Draft[] {
  const path = issue.path.filter((s): s is PathSegment => typeof s !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const known = knownFieldsAt(path);
    return issue.keys.map((key) => ({
      code: 'unknown_field',
      path: [...path, key],
      found: 'an unknown field',
      expected: `one of the known fields ${known.join(' | ')}`,
    }));
  }
  return [{ code: 'invalid_field', path, found: describeFound(valueAt(root, path), path), expected: issue.message }];
}

/** Short and quoted, never a whole blob, and never anything under api_keys_sha256. */
function describeFound(value: unknown, path: readonly PathSegment[]): string {
  if (value === undefined) return 'nothing (the field is missing)';
  if (value === null) return 'null (an empty value)';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : `a list of ${value.length}`;
  if (typeof value === 'object') return 'a mapping';
  if (path.includes('api_keys_sha256')) return 'a value that is not 64 hex characters (not shown: it may be a plain key)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
