import { isUsageProblem } from './fault-words';
import { proxyCommand } from './proxy-cli';
import { natsCommand, postgresCommand } from './servers-cli';
import { USAGE } from './usage';

const commands: Record<string, (argv: string[]) => Promise<void>> = {
  proxy: proxyCommand,
  nats: natsCommand,
  postgres: postgresCommand,
};

export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

const stdio: CliOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/**
 * Runs one CLI command to its end and returns the exit status: 0 done, 1 failed, 2 bad usage.
 * Long-running commands print to the real stdout; `output` receives help and error messages.
 */
export async function runCli(argv: readonly string[], output: CliOutput = stdio): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help' || rest.includes('--help')) {
    (name === undefined ? output.err : output.out)(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    output.err(`usage: unknown command "${name}"; try --help\n`);
    return 2;
  }
  try {
    await command(rest);
    return 0;
  } catch (error: unknown) {
    const message = error instanceof Error ? error.message : String(error);
    // parseArgs reports unknown or malformed flags with codes starting ERR_PARSE_ARGS.
    const usage = isUsageProblem(error) || String((error as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS');
    output.err(`${usage ? 'usage' : 'error'}: ${message}\n`);
    return usage ? 2 : 1;
  }
}
