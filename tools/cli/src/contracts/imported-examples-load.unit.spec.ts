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
