import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FIXTURES = join(__dirname, '../../domain/test/fixtures');

export interface ContractsDir {
  readonly dir: string;
  remove(): Promise<void>;
}

/**
 * The demo contracts (demo.yaml) with every origin pointed at `origin` (a test target), plus the
 * SSH demo contract (ops.yaml), in a directory of their own: what ONCEPORT_CONTRACTS_DIR names.
 */
export async function writeDemoContracts(origin: string): Promise<ContractsDir> {
  const dir = await mkdtemp(join(tmpdir(), 'onceport-dispatcher-contracts-'));
  const demo = await readFile(join(FIXTURES, 'contracts/demo.yaml'), 'utf8');
  await writeFile(join(dir, 'demo.yaml'), demo.replace(/origin: https:\/\/\S+/g, `origin: ${origin}`));
  await copyFile(join(FIXTURES, 'contracts-ssh/ops.yaml'), join(dir, 'ops.yaml'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
