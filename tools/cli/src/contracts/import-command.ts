import { existsSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { parseDuration } from '@onceport/domain';
import { type CliIo, println } from '../cli/cli-io';
import { EXIT, EXIT_CODES_HELP, usageError } from '../cli/exit-codes';
import { flag, noPositionals, parseOptions, stringOption, type Parsed } from '../cli/parse-options';
import { appendTools } from './append-tools';
import { readExistingContract } from './existing-contract';
import { type ImportedContract, checkPrefix, contractToolName, importedContract } from './imported-contract';
import { sourceOf, splitCommandLine } from './import-source';
import { IMPORT_BOUNDS, listUpstreamTools } from './list-upstream-tools';
import { renderContract } from './render-contract';
import { hasChanges, renderChanges, upstreamChanges } from './upstream-changes';

/** A re-run found the upstream changed (the file is not rewritten): a script or CI job can act on it. */
export const EXIT_UPSTREAM_CHANGED = 3;

const DEFAULT_TIMEOUT = '30s';

export const IMPORT_HELP = `onceport contracts import — write a contract file from the tools an MCP server lists

Usage:
  onceport contracts import --from-mcp <url> [--header 'Name: value']… [--token-env VAR] [options]
  onceport contracts import [--env NAME[=VALUE]]… [options] --from-mcp -- <command> [args…]

Connects with the MCP v2 client (version negotiation auto: 2026-07-28, else 2025-11-25), lists
every tool (all pages) and writes a contract file (YAML): one upstream (stdio: the command; http:
the URL), and per tool its input schema as the server gives it, target { upstream, tool }, a role
for each argument marked "guess" (identity / derived / generated: check each one), and no effect:
an undeclared effect is the worst case (irreversible, an unknown outcome goes to review) until you
declare it. The server's hints (readOnlyHint, idempotentHint, destructiveHint, openWorldHint) are
shown as a comment and never trusted. A tool the server says runs as a task (execution.taskSupport
optional or required) gets probe: { kind: mcp_task } as a commented-out suggestion: uncommented,
the dispatcher asks for a task and an unknown outcome is settled by polling it.

Re-running with --out <file> when the file exists never rewrites it: it prints what changed
upstream (tools added, removed, input schemas changed, with a diff per tool). --write-new appends
the added tools at the end of its tools: list and leaves every existing entry as it is.

Options:
  --from-mcp <url>            a Streamable HTTP endpoint; or --from-mcp -- <command> [args…] for stdio
  --header 'Name: value'      an HTTP header for the import's requests (repeatable)
  --token-env <VAR>           send "Authorization: Bearer $VAR" (keeps the token out of argv)
  --env NAME=VALUE | NAME     a variable for the stdio server (NAME alone: its value here); written
                              under env:, except a secret-looking name (…_TOKEN, …_API_KEY): credential_env
  --name <upstream>           the upstream's name in the file (default: from the server's name)
  --prefix <text>             put before every tool name (e.g. fs_)
  --out <file|->              where to write (default -, stdout); an existing file is compared, not rewritten
  --write-new                 with an existing --out: append the tools the file lacks
  --timeout <duration>        for connecting and listing (default ${DEFAULT_TIMEOUT})

A credential the import used is never written: the file names it (credential_ref) for the dispatcher.
A --header value shows in ps and shell history: prefer --token-env for a token.
Bounds: at most ${IMPORT_BOUNDS.maxTools} tools in ${IMPORT_BOUNDS.maxPages} pages; a tool whose input schema is over ${IMPORT_BOUNDS.maxSchemaBytes / 1024} KiB
or nests deeper than ${IMPORT_BOUNDS.maxSchemaDepth} levels is left out (named in the file and on stderr).

${EXIT_CODES_HELP}
For this command: 1 also when the server does not speak MCP (or lists too much), 3 when a re-run
found the upstream changed, 4 when the server refused the credential, 5 when it cannot be reached
or the command cannot be started.`;

export async function importCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { options, command } = splitCommandLine(args);
  const parsed = parseOptions('contracts import', options, {
    'from-mcp': { type: 'string' },
    header: { type: 'string', multiple: true },
    env: { type: 'string', multiple: true },
    'token-env': { type: 'string' },
    name: { type: 'string' },
    prefix: { type: 'string' },
    out: { type: 'string', short: 'o' },
    'write-new': { type: 'boolean' },
    timeout: { type: 'string' },
  });
  if (flag(parsed, 'help')) {
    println(io.stdout, IMPORT_HELP);
    return EXIT.ok;
  }
  noPositionals('contracts import', parsed);
  const auth = { headers: listOption(parsed, 'header'), tokenEnv: stringOption(parsed, 'token-env'), env: listOption(parsed, 'env') };
  const source = sourceOf(stringOption(parsed, 'from-mcp'), command, auth, io);
  const naming = { name: stringOption(parsed, 'name'), prefix: checkPrefix(stringOption(parsed, 'prefix')) };
  const listing = await listUpstreamTools(source, timeoutOf(parsed));
  const contract = importedContract(listing, source, naming);
  for (const skip of contract.skipped) println(io.stderr, `onceport: warning: not imported: ${skip.name}: ${skip.reason}`);

  const out = stringOption(parsed, 'out') ?? '-';
  if (out === '-') {
    io.stdout.write(renderContract(contract, new Date()));
    return EXIT.ok;
  }
  if (existsSync(out)) return compareWithFile(out, contract, parsed, io);
  writeAtomically(out, renderContract(contract, new Date()));
  println(
    io.stderr,
    `wrote ${contract.tools.length} tools of upstream ${contract.upstream.name} to ${out}: check each role marked "guess", then declare each effect`,
  );
  return EXIT.ok;
}

function compareWithFile(out: string, contract: ImportedContract, parsed: Parsed, io: CliIo): number {
  const existing = readExistingContract(out, contract.upstream.name, stringOption(parsed, 'name') !== undefined);
  const changes = upstreamChanges(existing, contract.tools);
  const append = flag(parsed, 'write-new') && changes.added.length > 0;
  if (append) {
    // New names must not take one the operator's file already uses (for any upstream).
    const taken = new Set(existing.toolNames);
    const prefix = stringOption(parsed, 'prefix') ?? '';
    const added = changes.added.map((tool) => ({ ...tool, name: contractToolName(tool.upstreamTool, prefix, taken) }));
    writeAtomically(out, appendTools(existing, added));
    println(io.stdout, renderChanges({ ...changes, added }, out, existing.upstream, true));
  } else {
    println(io.stdout, renderChanges(changes, out, existing.upstream, false));
  }
  return hasChanges(changes) ? EXIT_UPSTREAM_CHANGED : EXIT.ok;
}

function listOption(parsed: Parsed, name: string): string[] {
  return (parsed.values[name] as unknown as string[] | undefined) ?? [];
}

function timeoutOf(parsed: Parsed): number {
  const raw = stringOption(parsed, 'timeout') ?? DEFAULT_TIMEOUT;
  const ms = parseDuration(raw);
  if (ms === null || ms > 600_000)
    throw usageError(`contracts import: --timeout must be a duration like 30s or 2m (at most 10m), got ${JSON.stringify(raw)}`);
  return ms;
}

/** Written beside the target and renamed over it: a reader never sees half a contract file. */
function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.partial`;
  try {
    const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o644;
    writeFileSync(temporary, text, { mode });
    renameSync(temporary, path);
  } catch (error) {
    throw usageError(`contracts import: cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}
