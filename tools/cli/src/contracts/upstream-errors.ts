import { formatDuration } from '@onceport/domain';
import { CliError, EXIT, messageOf } from '../cli/exit-codes';
import { type UpstreamSource, describeSource } from './import-source';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);
const SPAWN_CODES = new Set(['ENOENT', 'EACCES', 'ENOEXEC', 'EPERM', 'ENOTDIR']);

interface Failure {
  readonly timedOut: boolean;
  readonly timeoutMs: number;
  /** The last lines a stdio server wrote on stderr. */
  readonly stderr: string;
}

/** A connection or listing failure as one CLI line and the exit code a script can act on. */
export function upstreamError(error: unknown, source: UpstreamSource, failure: Failure): CliError {
  if (error instanceof CliError) return error;
  const where = source.transport === 'http' ? source.url.href : `the command ${describeSource(source)}`;
  const chain = causes(error);
  const codes = chain.map((e) => (e as { code?: unknown }).code).filter((code): code is string => typeof code === 'string');
  const status = chain.map((e) => (e as { data?: { status?: unknown } }).data?.status).find((s): s is number => typeof s === 'number');

  if (failure.timedOut || codes.includes('REQUEST_TIMEOUT'))
    return new CliError(EXIT.unreachable, `no answer from ${where} within ${formatDuration(failure.timeoutMs)} (raise it with --timeout)`);
  const spawnCode = codes.find((code) => SPAWN_CODES.has(code));
  if (source.transport === 'stdio' && spawnCode)
    return new CliError(
      EXIT.unreachable,
      `cannot start ${JSON.stringify(source.command)}: ${spawnCode}${spawnCode === 'ENOENT' ? ' (no such program)' : ''}`,
    );
  if (source.transport === 'stdio' && codes.includes('CONNECTION_CLOSED'))
    return new CliError(EXIT.failed, `${where} exited or closed its output before answering as an MCP server${stderrNote(failure.stderr)}`);
  if (status === 401 || status === 403 || codes.includes('CLIENT_HTTP_AUTHENTICATION') || codes.includes('CLIENT_HTTP_FORBIDDEN'))
    return new CliError(
      EXIT.auth,
      `${where} refused the request (HTTP ${status ?? 401}): give a credential with --token-env <VAR> or --header 'Authorization: Bearer …'`,
    );
  if (status !== undefined && status >= 500) return new CliError(EXIT.unreachable, `${where} failed with HTTP ${status}`);
  if (status !== undefined) return new CliError(EXIT.failed, `not an MCP server at ${where}: it answered HTTP ${status}`);
  if (codes.includes('CLIENT_HTTP_UNEXPECTED_CONTENT'))
    return new CliError(EXIT.failed, `not an MCP server at ${where}: it answered with content that is not JSON-RPC`);
  const networkCode = codes.find((code) => NETWORK_CODES.has(code));
  if (networkCode || chain.some((e) => messageOf(e) === 'fetch failed'))
    return new CliError(EXIT.unreachable, `cannot connect to ${where}${networkCode ? `: ${networkCode}` : ''}`);
  const rpcCode = chain.map((e) => (e as { code?: unknown }).code).find((code): code is number => typeof code === 'number');
  if (rpcCode !== undefined)
    return new CliError(EXIT.failed, `${where} answered with a JSON-RPC error ${rpcCode}: ${oneLine(messageOf(error))}`);
  return new CliError(EXIT.failed, `cannot list the tools of ${where}: ${oneLine(messageOf(error))}${stderrNote(failure.stderr)}`);
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && current !== null && chain.length < 8;) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

function stderrNote(stderr: string): string {
  const last = stderr.trim().split('\n').slice(-3).join(' | ');
  return last ? `; its stderr said: ${oneLine(last)}` : '';
}

function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 300);
}
