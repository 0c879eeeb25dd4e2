// The onceport command-line tool: `npx onceport --help`.
import { messageOf } from './cli/exit-codes';
import { runCli } from './cli/run-cli';

// `onceport audit export --out - | head`: the reader went away; stop quietly, as other tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(`onceport: unexpected error: ${messageOf(error)}\n`);
    process.exitCode = 1;
  },
);
