import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseToolContracts } from '@onceport/domain';

const EXAMPLES = join(__dirname, '../../examples');

/** What `contracts import` wrote for the two npm servers loads as it is: every tool a contract, every effect undeclared. */
describe.each(['filesystem.yaml', 'everything.yaml'])('the imported example %s', (file) => {
  it('loads (draft-07 $schema markers included) with every effect left undeclared, so the worst case', () => {
    const contracts = parseToolContracts(readFileSync(join(EXAMPLES, file), 'utf8'), file);
    expect(contracts.length).toBeGreaterThan(5);
    for (const contract of contracts) {
      expect(contract).toMatchObject({ channel: 'mcp', effectDeclared: false, effect: 'irreversible' });
    }
  });
});

describe('the imported example everything.yaml, its task suggestion taken', () => {
  it('simulate-research-query (taskSupport required) loads with probe: { kind: mcp_task } once its suggested line is uncommented', () => {
    const text = readFileSync(join(EXAMPLES, 'everything.yaml'), 'utf8');
    expect(text.match(/^ {4}# probe: \{ kind: mcp_task \}$/gm)).toHaveLength(1);
    const accepted = parseToolContracts(text.replace(/^( {4})# (probe: \{ kind: mcp_task \})$/m, '$1$2'), 'everything.yaml');
    const probed = accepted.filter((contract) => contract.probe !== null);
    expect(probed.map((contract) => [contract.name, contract.probe, contract.effectDeclared])).toEqual([
      ['simulate-research-query', { kind: 'mcp_task' }, false],
    ]);
  });
});
