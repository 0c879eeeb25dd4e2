import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  contractIssue,
  mergeToolContracts,
  parseToolContracts,
  ToolContractError,
  type ContractIssue,
  type ToolContract,
} from '@onceport/domain';

export interface LoadedToolContracts {
  readonly contracts: readonly ToolContract[];
  readonly byName: ReadonlyMap<string, ToolContract>;
  /** The files read, in load order. */
  readonly files: readonly string[];
}

const CONTRACT_FILE = /\.ya?ml$/i;

/**
 * Loads every `*.yaml` / `*.yml` of a directory (sorted by name; dot-files skipped) or the given
 * files, parses them with the domain parser and merges them. Throws one `ToolContractError`
 * listing every problem of every file, so an operator fixes them all in one pass.
 *
 * @example const { byName } = await loadToolContracts(env.ONCEPORT_CONTRACTS_DIR);
 */
export async function loadToolContracts(dirOrFiles: string | readonly string[]): Promise<LoadedToolContracts> {
  const listed = typeof dirOrFiles === 'string' ? await listDirectory(dirOrFiles) : await checkFiles(dirOrFiles);
  if (listed.issues.length > 0) throw new ToolContractError(listed.issues);

  const issues: ContractIssue[] = [];
  const parsed: ToolContract[][] = [];
  for (const file of listed.files) {
    try {
      parsed.push(parseToolContracts(await readFile(file, 'utf8'), file));
    } catch (error) {
      if (error instanceof ToolContractError) issues.push(...error.issues);
      else
        issues.push(fileIssue('unreadable_file', file, `a file that cannot be read (${errorCode(error)})`, 'a readable UTF-8 YAML file'));
    }
  }
  // Duplicates are only meaningful among files that parsed; report them alongside parse problems.
  let contracts: ToolContract[] = [];
  try {
    contracts = mergeToolContracts(parsed);
  } catch (error) {
    if (!(error instanceof ToolContractError)) throw error;
    issues.push(...error.issues);
  }
  if (issues.length > 0) throw new ToolContractError(issues);
  return { contracts, byName: new Map(contracts.map((c) => [c.name, c])), files: listed.files };
}

interface Listing {
  files: string[];
  issues: ContractIssue[];
}

async function listDirectory(path: string): Promise<Listing> {
  const kind = await kindOf(path);
  if (kind === 'file') return { files: [path], issues: [] };
  if (kind !== 'directory') {
    const found = kind === 'missing' ? 'a path that does not exist' : `a path that cannot be read (${kind})`;
    return {
      files: [],
      issues: [fileIssue('no_contract_files', path, found, 'a directory of *.yaml / *.yml tool contract files (ONCEPORT_CONTRACTS_DIR)')],
    };
  }
  const names = (await readdir(path)).filter((n) => CONTRACT_FILE.test(n) && !n.startsWith('.')).sort();
  // stat, not Dirent.isFile(): Kubernetes ConfigMap volumes mount each file as a symlink.
  const files: string[] = [];
  for (const name of names) {
    if ((await kindOf(join(path, name))) === 'file') files.push(join(path, name));
  }
  if (files.length === 0) {
    return {
      files,
      issues: [
        fileIssue(
          'no_contract_files',
          path,
          'a directory without *.yaml or *.yml files',
          'at least one tool contract file in the directory',
        ),
      ],
    };
  }
  return { files, issues: [] };
}

async function checkFiles(paths: readonly string[]): Promise<Listing> {
  if (paths.length === 0)
    return {
      files: [],
      issues: [fileIssue('no_contract_files', '(no files)', 'an empty list of files', 'at least one tool contract file')],
    };
  const issues: ContractIssue[] = [];
  for (const path of paths) {
    const kind = await kindOf(path);
    if (kind !== 'file')
      issues.push(
        fileIssue(
          'no_contract_files',
          path,
          kind === 'missing' ? 'a file that does not exist' : `not a readable file (${kind})`,
          'a tool contract YAML file',
        ),
      );
  }
  return { files: [...paths], issues };
}

async function kindOf(path: string): Promise<'file' | 'directory' | 'missing' | 'other' | string> {
  try {
    const info = await stat(path);
    return info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other';
  } catch (error) {
    const code = errorCode(error);
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : code;
  }
}

function fileIssue(code: ContractIssue['code'], file: string, found: string, expected: string): ContractIssue {
  return contractIssue({ code, file, path: '', line: null, found, expected });
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? (error instanceof Error ? error.message : String(error));
}
