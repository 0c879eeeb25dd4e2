import { isDeepStrictEqual } from 'node:util';
import { contractIssue, ToolContractError, type ContractIssue } from './tool-contract-error';
import type { McpToolContract, McpUpstream, ToolContract } from './tool-contract.types';

/**
 * Combines the contracts of several files into one list. Tool names are what agents call, so a
 * name declared twice is refused, naming both files, instead of letting load order pick one.
 *
 * @example const all = mergeToolContracts([parseToolContracts(a, 'a.yaml'), parseToolContracts(b, 'b.yaml')]);
 */
export function mergeToolContracts(files: ReadonlyArray<readonly ToolContract[]>): ToolContract[] {
  const byName = new Map<string, ToolContract>();
  const issues: ContractIssue[] = [];
  const upstreams = new UpstreamNames();
  for (const contract of files.flat()) {
    if (contract.channel === 'mcp') {
      const clash = upstreams.clash(contract);
      if (clash) issues.push(clash);
    }
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

/**
 * An upstream is named per file, but the dispatcher keeps one connection per name and the
 * fingerprint of a stdio upstream is `mcp+stdio://<name>`: two files may declare the same name
 * only with the same declaration.
 */
class UpstreamNames {
  private readonly first = new Map<string, { readonly upstream: McpUpstream; readonly file: string }>();
  private readonly reported = new Set<string>();

  clash(contract: McpToolContract): ContractIssue | null {
    const { upstream } = contract.target;
    const first = this.first.get(upstream.name);
    if (!first) {
      this.first.set(upstream.name, { upstream, file: contract.source.file });
      return null;
    }
    const key = `${contract.source.file}\u0000${upstream.name}`;
    if (first.upstream === upstream || isDeepStrictEqual(first.upstream, upstream) || this.reported.has(key)) return null;
    this.reported.add(key);
    return contractIssue({
      code: 'duplicate_upstream',
      file: contract.source.file,
      path: `tools[${contract.source.index}].target.upstream`,
      line: contract.source.line,
      found: `upstream "${upstream.name}", declared differently in ${first.file}`,
      expected: 'one declaration per upstream name across all contract files: rename one, or declare both alike',
    });
  }
}
