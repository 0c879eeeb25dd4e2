// Re-records the contract fixtures into <out-dir> (see libs/contracts/test/fixtures/README.md):
//   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/record-fixtures/src/main.ts <out-dir>
import { resolve } from 'node:path';
import { recordFixtures } from './record-fixtures';

async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) {
    process.stderr.write('usage: record-fixtures <out-dir>  (libs/contracts/test/fixtures to overwrite the committed ones)\n');
    process.exit(64);
  }
  const written = await recordFixtures(resolve(out));
  for (const file of written) process.stdout.write(`${file}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
