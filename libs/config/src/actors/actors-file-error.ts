export type ActorsFileIssueCode =
  | 'unreadable_file'
  | 'yaml_syntax'
  | 'invalid_field'
  | 'unknown_field'
  | 'duplicate_id'
  | 'duplicate_key'
  /** The keys file names an id the actors file does not declare. */
  | 'unknown_id'
  /** An actor or admin with key hashes in neither file. */
  | 'missing_keys'
  /** An id with key hashes in both files: which list counts would be a guess. */
  | 'keys_in_both_files'
  /** An actor names oauth_subjects, but the file has no oauth: section to verify tokens with. */
  | 'oauth_not_configured'
  /** One token subject listed for two actors: which one a token proves would be a guess. */
  | 'duplicate_oauth_subject';

/** One problem in the actors file (or its keys file), located precisely enough to fix without reading our code. */
export interface ActorsFileIssue {
  readonly code: ActorsFileIssueCode;
  readonly file: string;
  /** e.g. `actors[1].api_keys_sha256[0]`; empty when the problem is the file itself. */
  readonly path: string;
  readonly found: string;
  readonly expected: string;
  readonly line: number | null;
  /** `<file>: <path>: got <found>; expected <expected> (line N)`, like tool contract errors. */
  readonly message: string;
}

export function actorsFileIssue(fields: Omit<ActorsFileIssue, 'message'>): ActorsFileIssue {
  const fileLevel = fields.path === '';
  const where = fileLevel ? (fields.line === null ? fields.file : `${fields.file}:${fields.line}`) : `${fields.file}: ${fields.path}`;
  const line = fileLevel || fields.line === null ? '' : ` (line ${fields.line})`;
  return { ...fields, message: `${where}: got ${fields.found}; expected ${fields.expected}${line}` };
}

/** Thrown at start when the actors file can't be used; lists every problem at once. */
export class ActorsFileError extends Error {
  readonly code = 'ACTORS_FILE_INVALID' as const;

  constructor(readonly issues: readonly ActorsFileIssue[]) {
    const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
    super([`Actors file is invalid (${count}):`, ...issues.map((issue) => `  ${issue.message}`)].join('\n'));
    this.name = 'ActorsFileError';
  }
}
