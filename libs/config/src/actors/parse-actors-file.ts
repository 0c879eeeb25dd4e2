import { createHash } from 'node:crypto';
import { type ActorsFileIssue, ActorsFileError, actorsFileIssue } from './actors-file-error';
import { KNOWN_FIELDS, RawActorsFile } from './actors-file.schema';
import { type ActorsFile } from './actors-file.types';
import { type PathSegment, formatPath, readYaml, valueAt } from '@onceport/domain';
import { type Draft, findDuplicates } from './find-duplicates';

/**
 * Parses the actors file. Pure apart from hashing: the caller reads the bytes. Throws an
 * {@link ActorsFileError} listing every problem, each naming the file, the field path, what was
 * found and what is expected. Key hashes are never echoed: a "hash" that fails validation is
 * often a plain key pasted by mistake.
 *
 * @example const actors = parseActorsFile(await readFile(path, 'utf8'), path);
 */
export function parseActorsFile(text: string, file: string): ActorsFile {
  const source = readYaml(text);
  if (source.syntaxProblems.length > 0) {
    throw new ActorsFileError(
      source.syntaxProblems.map((p) =>
        actorsFileIssue({ code: 'yaml_syntax', file, path: '', line: p.line, found: `a YAML syntax error at column ${p.column} (${p.message})`, expected: 'valid YAML: check indentation, quoting and duplicate keys' }),
      ),
    );
  }
  const parsed = RawActorsFile.safeParse(source.data);
  if (!parsed.success) {
    const drafts = parsed.error.issues.flatMap((issue) => toDrafts(issue, source.data));
    throw new ActorsFileError(locate(drafts, file, source.lineOf));
  }
  const duplicates = findDuplicates(parsed.data);
  if (duplicates.length > 0) throw new ActorsFileError(locate(duplicates, file, source.lineOf));
  return {
    file,
    policyVersion: createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 12),
    actors: parsed.data.actors.map((a) => ({ id: a.id, apiKeysSha256: a.api_keys_sha256.map(lower), tools: a.tools, sessionGrant: a.session_grant })),
    admins: parsed.data.admins.map((a) => ({ id: a.id, apiKeysSha256: a.api_keys_sha256.map(lower) })),
  };
}

const lower = (hex: string): string => hex.toLowerCase();

function toDrafts(issue: { code: string; path: PropertyKey[]; message: string; keys?: string[] }, root: unknown): Draft[] {
  const path = issue.path.filter((s): s is PathSegment => typeof s !== 'symbol');
  if (issue.code === 'unrecognized_keys' && issue.keys) {
    const known = knownFieldsAt(path);
    return issue.keys.map((key) => ({ code: 'unknown_field', path: [...path, key], found: 'an unknown field', expected: `one of the known fields ${known.join(' | ')}` }));
  }
  return [{ code: 'invalid_field', path, found: describeFound(valueAt(root, path), path), expected: issue.message }];
}

function knownFieldsAt(path: readonly PathSegment[]): readonly string[] {
  if (path.length === 0) return KNOWN_FIELDS.file;
  return path[0] === 'admins' ? KNOWN_FIELDS.admin : KNOWN_FIELDS.actor;
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

function locate(drafts: readonly Draft[], file: string, lineOf: (path: readonly PathSegment[]) => number | null): ActorsFileIssue[] {
  return drafts
    .map((d) => actorsFileIssue({ code: d.code, file, path: formatPath(d.path), line: lineOf(d.path), found: d.found, expected: d.expected }))
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}
