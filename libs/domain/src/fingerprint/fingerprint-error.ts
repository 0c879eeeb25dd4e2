export type FingerprintErrorCode =
  /** The call's arguments do not satisfy the tool's schema; see `argumentIssues`. */
  | 'INVALID_ARGUMENTS'
  /** Actor, intent scope or record fields missing or malformed. */
  | 'INVALID_RECORD_INPUT'
  /** Keyring malformed: bad key id, short key, unknown active key… */
  | 'KEYRING_INVALID';

export interface FingerprintArgumentIssue {
  readonly path: string;
  readonly keyword: string;
  readonly message: string;
}

/**
 * Every refusal of the fingerprint module. Messages never contain key material or the value of
 * a sensitive argument: they end up in logs.
 */
export class FingerprintError extends Error {
  readonly code: FingerprintErrorCode;
  readonly problems: readonly string[];
  readonly argumentIssues: readonly FingerprintArgumentIssue[];

  constructor(code: FingerprintErrorCode, problems: readonly string[], argumentIssues: readonly FingerprintArgumentIssue[] = []) {
    super(problems.length === 1 ? (problems[0] ?? code) : `${code}:\n  ${problems.join('\n  ')}`);
    this.name = 'FingerprintError';
    this.code = code;
    this.problems = problems;
    this.argumentIssues = argumentIssues;
  }
}
