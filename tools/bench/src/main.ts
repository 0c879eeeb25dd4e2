// npm run bench -- [--quick] …: see bench-options.ts, or --help.
import { USAGE, UsageError, readBenchOptions } from './bench-options';
import { runBench } from './run-bench';
import { renderMarkdown } from './report/render-markdown';

async function main(): Promise<void> {
  let options;
  try {
    options = readBenchOptions(process.argv.slice(2));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${message ? `bench: ${message}\n` : ''}${USAGE}\n`);
    process.exit(error instanceof UsageError && !message ? 0 : 64);
  }
  const log = (line: string): void => void process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
  log(`bench (${options.mode}): ${[...options.scenarios].join(', ')}`);
  const report = await runBench(options, log);
  process.stdout.write(renderMarkdown(report));
  log(`written: tools/bench/reports/${options.outName}.md and .json`);
}

// Ctrl-C or a kill: exit through process.exit so fault-kit's exit hooks stop the private PostgreSQL
// cluster and nats-server instead of leaving them running.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
