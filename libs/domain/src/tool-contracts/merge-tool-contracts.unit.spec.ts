import { contractsYaml, httpTool, sshTool } from '../../test/contract-builders';
import { mergeToolContracts } from './merge-tool-contracts';
import { parseToolContracts } from './parse-tool-contracts';
import { ToolContractError } from './tool-contract-error';

describe('mergeToolContracts', () => {
  it('concatenates the contracts of several files', () => {
    const a = parseToolContracts(contractsYaml(httpTool()), 'contracts/a.yaml');
    const b = parseToolContracts(contractsYaml(sshTool()), 'contracts/b.yaml');
    expect(mergeToolContracts([a, b]).map((c) => c.name)).toEqual(['create_item', 'run_migration']);
  });

  it('refuses a name declared in two files, naming both', () => {
    const a = parseToolContracts(contractsYaml(httpTool()), 'contracts/a.yaml');
    const b = parseToolContracts(contractsYaml(sshTool(), httpTool()), 'contracts/b.yaml');
    expect(() => mergeToolContracts([a, b])).toThrow(ToolContractError);
    try {
      mergeToolContracts([a, b]);
    } catch (error) {
      const [issue] = (error as ToolContractError).issues;
      expect(issue).toMatchObject({ code: 'duplicate_tool', file: 'contracts/b.yaml', path: 'tools[1].name' });
      expect(issue?.message).toContain(
        'contracts/b.yaml: tools[1].name: got "create_item", already declared in contracts/a.yaml (tools[0]); expected a tool name used once',
      );
    }
  });
});
