// Entry point: node -r @swc-node/register libs/test-target/src/main.ts --port 8787
import { runTargetProcess } from './run-target-process';

runTargetProcess(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`test-target: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
