/** What kind of problem a contract file has; adapters and tests can branch on it. */
export type ContractIssueCode =
  | 'yaml_syntax'
  | 'invalid_field'
  | 'unknown_field'
  | 'invalid_arguments_schema'
  | 'missing_role'
  | 'role_for_unknown_argument'
  | 'invalid_template'
  | 'effect_conflict'
  | 'probe_required'
  | 'blind_idempotency'
  | 'secret_in_contract'
  | 'host_key'
  | 'duplicate_tool'
  | 'duplicate_upstream'
  | 'unknown_upstream'
  | 'no_contract_files'
  | 'unreadable_file';

/** One problem in one file, located precisely enough to fix without reading our code. */
export interface ContractIssue {
  readonly code: ContractIssueCode;
  readonly file: string;
  /** e.g. `tools[0].target.path`; empty when the problem is the file itself. */
  readonly path: string;
  readonly found: string;
  readonly expected: string;
  /** 1-based line in the file when known. */
  readonly line: number | null;
  /** `<file>: <path>: got <found>; expected <expected>` (plus the line when known). */
  readonly message: string;
}

export function contractIssue(fields: Omit<ContractIssue, 'message'>): ContractIssue {
  // File-level problems (YAML syntax) read like compiler output: `file:line: …`.
  const fileLevel = fields.path === '';
  const where = fileLevel ? (fields.line === null ? fields.file : `${fields.file}:${fields.line}`) : `${fields.file}: ${fields.path}`;
  const line = fileLevel || fields.line === null ? '' : ` (line ${fields.line})`;
  return { ...fields, message: `${where}: got ${fields.found}; expected ${fields.expected}${line}` };
}

/**
 * Thrown when contract files cannot be turned into contracts. Carries every problem found, not
 * only the first: an operator fixing a file should not have to restart once per typo.
 */
export class ToolContractError extends Error {
  readonly code = 'TOOL_CONTRACT_INVALID' as const;
  readonly issues: readonly ContractIssue[];

  constructor(issues: readonly ContractIssue[]) {
    const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
    super([`Tool contracts are invalid (${count}):`, ...issues.map((i) => `  ${i.message}`)].join('\n'));
    this.name = 'ToolContractError';
    this.issues = issues;
  }
}
