import { MCP_TOOL_NAME_PATTERN, TOOL_NAME_PATTERN, UPSTREAM_NAME_PATTERN } from '@onceport/domain';
import { usageError } from '../cli/exit-codes';
import { type RoleGuess, guessRole } from './guess-role';
import type { UpstreamSource } from './import-source';
import { IMPORT_BOUNDS, type UpstreamListing, type UpstreamTool } from './list-upstream-tools';

/** The upstream entry of the contract file (`upstreams:`), as the contract parser reads it. */
export interface ImportedUpstream {
  readonly name: string;
  readonly source: UpstreamSource;
  /** Set when the import needed a credential: the file declares one by reference, never the value. */
  readonly credentialRef: string | null;
  /** stdio: the variable that receives the credential (the first `--env` whose name says secret). */
  readonly credentialEnv: string | null;
  /** stdio: the `--env` values that are written (plain configuration, never a secret). */
  readonly env: Readonly<Record<string, string>>;
  /** stdio: `--env` names whose values are not written (secrets beyond the one credential). */
  readonly withheld: readonly string[];
}

/** One tool of the file, with everything the operator still has to decide marked as such. */
export interface ImportedTool {
  readonly name: string;
  readonly upstreamTool: string;
  readonly title: string;
  readonly description: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly roles: readonly (RoleGuess & { readonly argument: string })[];
  /** The upstream's claims, for the comment (never the effect). */
  readonly hints: string;
  /** The upstream's `execution.taskSupport` when it says the tool runs as a task: a probe to suggest, never to choose. */
  readonly taskSupport: 'optional' | 'required' | null;
}

export interface ImportedContract {
  readonly upstream: ImportedUpstream;
  readonly tools: readonly ImportedTool[];
  readonly skipped: UpstreamListing['skipped'];
}

const HINTS = ['readOnlyHint', 'idempotentHint', 'destructiveHint', 'openWorldHint'] as const;
/** Names the contract parser takes for secrets (they come from credential_ref, never from the file). */
const SECRET_ENV_NAME = /(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)$/i;

export function importedContract(
  listing: UpstreamListing,
  source: UpstreamSource,
  options: { name?: string; prefix?: string },
): ImportedContract {
  const name = upstreamName(options.name, listing.serverName);
  const skipped = [...listing.skipped];
  const taken = new Set<string>();
  const tools: ImportedTool[] = [];
  for (const tool of listing.tools) {
    if (!MCP_TOOL_NAME_PATTERN.test(tool.name)) {
      skipped.push({ name: tool.name, reason: 'its name breaks the MCP tool name rules (1–128 letters, digits, _, - or .)' });
      continue;
    }
    tools.push(importedTool(tool, contractToolName(tool.name, options.prefix ?? '', taken)));
  }
  return { upstream: upstreamOf(name, source), tools, skipped };
}

function upstreamOf(name: string, source: UpstreamSource): ImportedUpstream {
  if (source.transport === 'http') {
    const credentialRef = source.headers['authorization'] !== undefined ? `${name}-token` : null;
    return { name, source, credentialRef, credentialEnv: null, env: {}, withheld: [] };
  }
  const secrets = Object.keys(source.env).filter((variable) => SECRET_ENV_NAME.test(variable));
  const env = Object.fromEntries(Object.entries(source.env).filter(([variable]) => !secrets.includes(variable)));
  const [credentialEnv, ...withheld] = secrets;
  return { name, source, credentialRef: credentialEnv ? `${name}-credential` : null, credentialEnv: credentialEnv ?? null, env, withheld };
}

function importedTool(tool: UpstreamTool, name: string): ImportedTool {
  const properties = tool.inputSchema['properties'];
  const argumentsSchema = typeof properties === 'object' && properties !== null ? (properties as Record<string, unknown>) : {};
  const title = tool.title ?? (typeof tool.annotations?.['title'] === 'string' ? tool.annotations['title'] : tool.name);
  return {
    name,
    upstreamTool: tool.name,
    title: cut(title, IMPORT_BOUNDS.maxTitleChars),
    description: cut(tool.description?.trim() || `${title} (the upstream gives no description)`, IMPORT_BOUNDS.maxDescriptionChars),
    arguments: tool.inputSchema,
    roles: Object.entries(argumentsSchema).map(([argument, schema]) => ({ argument, ...guessRole(argument, schema) })),
    hints: hintsOf(tool),
    taskSupport: taskSupportOf(tool),
  };
}

/** 'optional' or 'required' (the tool runs as a task); anything else, 'forbidden' or absent included, is no task. */
function taskSupportOf(tool: UpstreamTool): ImportedTool['taskSupport'] {
  const taskSupport = tool.execution?.['taskSupport'];
  return taskSupport === 'optional' || taskSupport === 'required' ? taskSupport : null;
}

function hintsOf(tool: UpstreamTool): string {
  const annotations = tool.annotations ?? {};
  const shown = HINTS.map((hint) => `${hint}=${hint in annotations ? JSON.stringify(annotations[hint]) : '(not given)'}`);
  const taskSupport = tool.execution?.['taskSupport'];
  if (typeof taskSupport === 'string') shown.push(`taskSupport=${JSON.stringify(taskSupport)}`);
  return shown.join(', ');
}

/** `--name`, checked; or the server's own name made into one (`Secure Filesystem` → `secure-filesystem`). */
function upstreamName(given: string | undefined, serverName: string | null): string {
  if (given !== undefined) {
    if (!UPSTREAM_NAME_PATTERN.test(given))
      throw usageError(
        `contracts import: --name ${JSON.stringify(given)} must be 1–64 lower-case letters, digits, _ or -, starting with a letter or digit`,
      );
    return given;
  }
  const derived = (serverName ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64)
    .replace(/[-_]+$/, '');
  return UPSTREAM_NAME_PATTERN.test(derived) ? derived : 'upstream';
}

/** The contract's tool name: the upstream's within Onceport's rules, prefixed, unique in the file. */
export function contractToolName(upstreamTool: string, prefix: string, taken: Set<string>): string {
  const base = `${prefix}${upstreamTool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 64 - String(n).length - 1)}_${n}`;
  taken.add(name);
  if (!TOOL_NAME_PATTERN.test(name)) throw usageError(`contracts import: cannot make a tool name of ${JSON.stringify(upstreamTool)}`);
  return name;
}

/** `--prefix`: must leave room for a name and keep it within the tool name rules. */
export function checkPrefix(prefix: string | undefined): string | undefined {
  if (prefix !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(prefix))
    throw usageError(`contracts import: --prefix ${JSON.stringify(prefix)} must be 1–32 letters, digits, _ or -`);
  return prefix;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
