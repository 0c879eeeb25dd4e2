// The fault kit for people: `node -r @swc-node/register tools/fault-kit/src/cli.ts --help`.
import { runCli } from './cli/main';

runCli(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
