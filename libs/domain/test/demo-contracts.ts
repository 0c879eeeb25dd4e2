// The demo contracts fixture, parsed once per test file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseToolContracts, type ToolContract } from '../src/tool-contracts';

export const DEMO_CONTRACTS_FILE = join(__dirname, 'fixtures/contracts/demo.yaml');

export function demoContract(name: string): ToolContract {
  const contract = parseToolContracts(readFileSync(DEMO_CONTRACTS_FILE, 'utf8'), 'demo.yaml').find((c) => c.name === name);
  if (!contract) throw new Error(`demo.yaml has no tool ${name}`);
  return contract;
}
