import { type CliIo, println } from '../cli/cli-io';
import { EXIT, EXIT_CODES_HELP, usageError } from '../cli/exit-codes';
import { isHelp } from '../cli/parse-options';
import { exportCommand } from './export-command';
import { verifyCommand } from './verify-command';

export const AUDIT_HELP = `onceport audit — the tamper-evident event store, exported and checked

Usage:
  onceport audit export --out <file|-> [--from-position <n>] [--to-position <n>] [--database-url <url>]
  onceport audit verify --file <export.jsonl> [--expect-anchor <hex>]
  onceport audit verify [--database-url <url>] [--checkpoint <earlier-export.jsonl>]

See onceport audit export --help and onceport audit verify --help.

${EXIT_CODES_HELP}`;

export async function auditCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || isHelp(sub)) {
    println(sub === undefined ? io.stderr : io.stdout, AUDIT_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  if (sub === 'export') return exportCommand(rest, io);
  if (sub === 'verify') return verifyCommand(rest, io);
  throw usageError(`audit: unknown command ${JSON.stringify(sub)} (see onceport audit --help)`);
}
