import { contractIssue, ToolContractError, type ContractIssue } from './tool-contract-error';
import type { ToolContract } from './tool-contract.types';

/**
 * Combines the contracts of several files into one list. Tool names are what agents call, so a
 * name declared twice is refused, naming both files, instead of letting load order pick one.
 *
 * @example const all = mergeToolContracts([parseToolContracts(a, 'a.yaml'), parseToolContracts(b, 'b.yaml')]);
 */
export function mergeToolContracts(files: ReadonlyArray<readonly ToolContract[]>): ToolContract[] {
  const byName = new Map<string, ToolContract>();
  const issues: ContractIssue[] = [];
  for (const contract of files.flat()) {
    const first = byName.get(contract.name);
    if (!first) {
      byName.set(contract.name, contract);
      continue;
    }
    issues.push(
      contractIssue({
        code: 'duplicate_tool',
        file: contract.source.file,
        path: `tools[${contract.source.index}].name`,
        line: contract.source.line,
        found: `"${contract.name}", already declared in ${first.source.file} (tools[${first.source.index}])`,
        expected: 'a tool name used once across all contract files: rename or remove one of them',
      }),
    );
  }
  if (issues.length > 0) throw new ToolContractError(issues);
  return [...byName.values()];
}
