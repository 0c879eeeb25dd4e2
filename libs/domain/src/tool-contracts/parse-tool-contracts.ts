import { createArgumentsAjv } from './arguments-ajv';
import { buildToolContract } from './build-tool-contract';
import { checkMcpUpstreams } from './check-mcp-upstreams';
import { draft, formatPath, type IssueDraft } from './issue-path';
import { RawContractFile } from './raw-tool-contract.schema';
import { contractIssue, ToolContractError, type ContractIssue } from './tool-contract-error';
import type { ToolContract } from './tool-contract.types';
import { readYaml, type YamlSource } from './yaml-source';
import { parseWithIssues } from './zod-issues';

/**
 * Parses one contract file (`tools: [ … ]`, and the MCP `upstreams: [ … ]` its tools name) into typed contracts with all defaults filled in.
 * Pure: the caller reads the file. Throws a `ToolContractError` listing every problem in the
 * file, each naming the file, the field path, what was found and what is expected.
 *
 * @example const contracts = parseToolContracts(await readFile(p, 'utf8'), 'contracts/deploy.yaml');
 */
export function parseToolContracts(yamlText: string, fileName: string): ToolContract[] {
  const source = readYaml(yamlText);
  if (source.syntaxProblems.length > 0) {
    throw new ToolContractError(
      source.syntaxProblems.map((p) =>
        contractIssue({
          code: 'yaml_syntax',
          file: fileName,
          path: '',
          line: p.line,
          found: `a YAML syntax error at column ${p.column} (${p.message})`,
          expected: 'valid YAML: check indentation, quoting and duplicate keys',
        }),
      ),
    );
  }
  const file = parseWithIssues(RawContractFile, source.data, []);
  if (!file.ok) {
    const empty = source.data === null || source.data === undefined;
    const issues = empty ? [draft('invalid_field', [], 'an empty file', 'a mapping with a tools: list')] : file.issues;
    throw new ToolContractError(locate(issues, fileName, source));
  }

  const ajv = createArgumentsAjv();
  const drafts: IssueDraft[] = [];
  const upstreams = checkMcpUpstreams(file.value.upstreams, drafts);
  const contracts: ToolContract[] = [];
  const firstIndexByName = new Map<string, number>();
  file.value.tools.forEach((rawTool, index) => {
    const built = buildToolContract(rawTool, { file: fileName, index, line: source.lineOf(['tools', index]) }, ajv, upstreams);
    drafts.push(...built.issues);
    if (!built.contract) return;
    const first = firstIndexByName.get(built.contract.name);
    if (first === undefined) {
      firstIndexByName.set(built.contract.name, index);
      contracts.push(built.contract);
    } else {
      drafts.push(
        draft(
          'duplicate_tool',
          ['tools', index, 'name'],
          `"${built.contract.name}", already declared at tools[${first}]`,
          'a tool name used once across all contract files',
        ),
      );
    }
  });
  if (drafts.length > 0) throw new ToolContractError(locate(drafts, fileName, source));
  return contracts;
}

/** Attaches file and line, in file order, so the list reads top to bottom like the YAML. */
function locate(drafts: readonly IssueDraft[], file: string, source: YamlSource): ContractIssue[] {
  return drafts
    .map((d) => contractIssue({ ...d, file, path: formatPath(d.path), line: source.lineOf(d.path) }))
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}
