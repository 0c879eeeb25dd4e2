import { CliError, EXIT, usageError } from '../cli/exit-codes';
import type { CliIo } from '../cli/cli-io';

/** Where the tools come from: a command run over stdio, or a Streamable HTTP endpoint. */
export type UpstreamSource =
  | {
      readonly transport: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** `--env`: given to the server (on top of the SDK's safe defaults: HOME, PATH, …). */
      readonly env: Readonly<Record<string, string>>;
    }
  | { readonly transport: 'http'; readonly url: URL; readonly headers: Readonly<Record<string, string>> };

const MAX_COMMAND_ARGS = 64;
const MAX_ENV = 64;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const HEADER = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/;

/**
 * `--from-mcp <url>` or `--from-mcp -- <command> <args…>`: splits the command line at `--` (what
 * follows is the upstream's own command line, never parsed as our options) and says which it is.
 */
export function splitCommandLine(args: readonly string[]): { options: string[]; command: string[] | null } {
  const dash = args.indexOf('--');
  if (dash < 0) return { options: [...args], command: null };
  const options = args.slice(0, dash);
  // `--from-mcp --`: the option's value is the command after the separator.
  if (options[options.length - 1] === '--from-mcp') options.pop();
  return { options, command: args.slice(dash + 1) };
}

export function sourceOf(
  fromMcp: string | undefined,
  command: string[] | null,
  auth: { headers: readonly string[]; tokenEnv: string | undefined; env: readonly string[] },
  io: CliIo,
): UpstreamSource {
  if (command !== null && fromMcp !== undefined)
    throw usageError('contracts import: give --from-mcp <url> or --from-mcp -- <command> [args…], not both');
  if (command !== null) {
    const [program, ...rest] = command;
    if (!program) throw usageError('contracts import: nothing after --: give the command that starts the MCP server');
    if (rest.length > MAX_COMMAND_ARGS) throw usageError(`contracts import: at most ${MAX_COMMAND_ARGS} arguments for the command`);
    if (auth.headers.length > 0 || auth.tokenEnv !== undefined)
      throw usageError('contracts import: --header and --token-env are for an HTTP upstream; a stdio server gets its environment');
    return { transport: 'stdio', command: program, args: rest, env: environmentOf(auth.env, io) };
  }
  if (fromMcp === undefined) throw usageError('contracts import: --from-mcp <url> or --from-mcp -- <command> [args…] is required');
  if (auth.env.length > 0) throw usageError('contracts import: --env is for a stdio server (the command after --)');
  return { transport: 'http', url: httpUrl(fromMcp), headers: headersOf(auth, io) };
}

function httpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`contracts import: --from-mcp ${JSON.stringify(raw)} is not a URL (or put the command after --)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`contracts import: --from-mcp must be an http(s) URL, got ${url.protocol}`);
  // Credentials in a URL would be written into the contract and printed: they go in a header.
  if (url.username || url.password) throw usageError('contracts import: no user:password in the URL; use --header or --token-env');
  return url;
}

/** `--env NAME=VALUE`, or `--env NAME` for the value this shell has (keeps a secret out of argv). */
function environmentOf(entries: readonly string[], io: CliIo): Record<string, string> {
  if (entries.length > MAX_ENV) throw usageError(`contracts import: at most ${MAX_ENV} --env`);
  const env: Record<string, string> = {};
  for (const entry of entries) {
    const equals = entry.indexOf('=');
    const name = equals < 0 ? entry : entry.slice(0, equals);
    if (!ENV_NAME.test(name)) throw usageError(`contracts import: --env ${JSON.stringify(name.slice(0, 40))} is not a variable name`);
    const value = equals < 0 ? io.env[name] : entry.slice(equals + 1);
    if (value === undefined) throw usageError(`contracts import: --env ${name}: the variable is not set here (or give NAME=VALUE)`);
    env[name] = value;
  }
  return env;
}

function headersOf(auth: { headers: readonly string[]; tokenEnv: string | undefined }, io: CliIo): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const raw of auth.headers) {
    const match = HEADER.exec(raw);
    if (!match) throw usageError(`contracts import: --header must look like "Name: value", got ${JSON.stringify(raw.slice(0, 40))}`);
    headers[(match[1] as string).toLowerCase()] = (match[2] as string).trim();
  }
  if (auth.tokenEnv !== undefined) {
    const token = io.env[auth.tokenEnv]?.trim();
    if (!token) throw new CliError(EXIT.auth, `contracts import: --token-env ${auth.tokenEnv}: the variable is not set or empty`);
    headers['authorization'] = `Bearer ${token}`;
  }
  return headers;
}

/** How the source is named in the file's first line (never a header value). */
export function describeSource(source: UpstreamSource): string {
  if (source.transport === 'http') return source.url.href;
  return [source.command, ...source.args].map(shellWord).join(' ');
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
