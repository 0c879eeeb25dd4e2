import { type ParseArgsConfig, parseArgs } from 'node:util';
import { usageError } from './exit-codes';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

export interface Parsed {
  readonly values: Record<string, string | boolean | undefined>;
  readonly positionals: string[];
}

/** `util.parseArgs`, strict, with its errors turned into usage errors (exit 2) naming the command. */
export function parseOptions(command: string, args: readonly string[], options: OptionsConfig): Parsed {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { help: { type: 'boolean', short: 'h' }, ...options },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Parsed['values'], positionals };
  } catch (error) {
    throw usageError(
      `${command}: ${error instanceof Error ? error.message.replace(/\. To specify a positional argument.*$/s, '') : String(error)} (see onceport ${command} --help)`,
    );
  }
}

export function stringOption(parsed: Parsed, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

export function flag(parsed: Parsed, name: string): boolean {
  return parsed.values[name] === true;
}

/** The single positional argument a command takes, or a usage error naming it. */
export function onePositional(command: string, parsed: Parsed, what: string): string {
  if (parsed.positionals.length !== 1 || !parsed.positionals[0])
    throw usageError(`${command}: expected one ${what} (see onceport ${command} --help)`);
  return parsed.positionals[0];
}

export function noPositionals(command: string, parsed: Parsed): void {
  if (parsed.positionals.length > 0)
    throw usageError(`${command}: unexpected argument ${parsed.positionals[0]} (see onceport ${command} --help)`);
}

export function requiredReason(command: string, parsed: Parsed): string {
  const reason = stringOption(parsed, 'reason')?.trim();
  if (!reason) throw usageError(`${command}: --reason "<why>" is required: it is recorded with the decision`);
  return reason;
}

export function isHelp(word: string | undefined): boolean {
  return word === 'help' || word === '--help' || word === '-h';
}
