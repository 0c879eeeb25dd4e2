import { type CliIo, println } from '../cli/cli-io';
import { EXIT, EXIT_CODES_HELP, usageError } from '../cli/exit-codes';
import { isHelp } from '../cli/parse-options';
import { importCommand } from './import-command';

export const CONTRACTS_HELP = `onceport contracts — tool contracts from the tools an MCP server offers

Usage:
  onceport contracts import --from-mcp <url | -- command args…> [--out <file>] [--write-new] [options]

See onceport contracts import --help.

${EXIT_CODES_HELP}`;

export async function contractsCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || isHelp(sub)) {
    println(sub === undefined ? io.stderr : io.stdout, CONTRACTS_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  if (sub === 'import') return importCommand(rest, io);
  throw usageError(`contracts: unknown command ${JSON.stringify(sub)} (see onceport contracts --help)`);
}
