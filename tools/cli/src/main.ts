// The onceport command-line tool: `npx onceport --help`.
import { messageOf } from './cli/exit-codes';
import { runCli } from './cli/run-cli';

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(`onceport: unexpected error: ${messageOf(error)}\n`);
    process.exitCode = 1;
  },
);
