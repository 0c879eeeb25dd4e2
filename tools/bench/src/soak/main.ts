// npm run soak -- [--minutes 10] …: see soak-options.ts, or --help.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPORTS_DIR } from '../run-bench';
import { renderSoak } from './render-soak';
import { runSoak } from './run-soak';
import { SOAK_USAGE, SoakUsageError, readSoakOptions } from './soak-options';

async function main(): Promise<void> {
  let options;
  try {
    options = readSoakOptions(process.argv.slice(2));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${message ? `soak: ${message}\n` : ''}${SOAK_USAGE}\n`);
    process.exit(error instanceof SoakUsageError && !message ? 0 : 64);
  }
  const log = (line: string): void => void process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
  log(`soak: ${options.minutes} min, ${options.replicas} replicas of each service, a fault every ${options.faultEverySeconds} s`);
  const report = await runSoak(options, log);
  const markdown = renderSoak(report);
  writeFileSync(join(REPORTS_DIR, `${options.outName}.md`), markdown);
  writeFileSync(join(REPORTS_DIR, `${options.outName}.json`), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(markdown);
  log(`written: tools/bench/reports/${options.outName}.md and .json`);
  const v = report.verdict;
  if (v.duplicates + v.lost + v.stuck + v.splitIdentities > 0 || !report.chain.ok) process.exit(2);
}

// Ctrl-C or a kill: exit through process.exit so fault-kit's exit hooks stop the private PostgreSQL and nats-server.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
