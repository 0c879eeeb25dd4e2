import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { type Document, parseDocument } from 'yaml';
import { CliError, EXIT, usageError } from '../cli/exit-codes';

const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** A tool of the operator's file that points at the upstream being imported. */
export interface ExistingTool {
  readonly name: string;
  readonly upstreamTool: string;
  readonly arguments: unknown;
}

/** The contract file a re-run compares with: read, never rewritten. */
export interface ExistingContract {
  readonly path: string;
  readonly text: string;
  readonly doc: Document;
  /** The upstream of the file the import is about (by name, or the only one the file declares). */
  readonly upstream: string;
  /** Its tools, by upstream tool name. */
  readonly tools: ReadonlyMap<string, ExistingTool>;
  /** Every tool name of the file (a new tool must not take one). */
  readonly toolNames: ReadonlySet<string>;
}

export function readExistingContract(path: string, upstreamName: string, nameGiven: boolean): ExistingContract {
  const text = readBounded(path);
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0)
    throw new CliError(
      EXIT.failed,
      `contracts import: ${path} is not valid YAML (${doc.errors[0]?.message.split('\n')[0] ?? 'unknown error'})`,
    );
  const data = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (!isObject(data) || !Array.isArray(data['tools']))
    throw new CliError(EXIT.failed, `contracts import: ${path} has no tools: list, so it cannot be compared; choose another --out`);
  const declared = (Array.isArray(data['upstreams']) ? data['upstreams'] : [])
    .map((upstream) => (isObject(upstream) ? upstream['name'] : undefined))
    .filter((name): name is string => typeof name === 'string');
  const upstream = upstreamOfFile(path, declared, upstreamName, nameGiven);

  const tools = new Map<string, ExistingTool>();
  const toolNames = new Set<string>();
  for (const tool of data['tools'] as unknown[]) {
    if (!isObject(tool) || typeof tool['name'] !== 'string') continue;
    toolNames.add(tool['name']);
    const target = tool['target'];
    if (tool['channel'] !== 'mcp' || !isObject(target) || target['upstream'] !== upstream) continue;
    const upstreamTool = typeof target['tool'] === 'string' ? target['tool'] : tool['name'];
    tools.set(upstreamTool, { name: tool['name'], upstreamTool, arguments: tool['arguments'] ?? {} });
  }
  return { path, text, doc, upstream, tools, toolNames };
}

function upstreamOfFile(path: string, declared: string[], wanted: string, nameGiven: boolean): string {
  if (declared.includes(wanted)) return wanted;
  // The operator may have renamed the upstream: a file with just one is about that one.
  if (!nameGiven && declared.length === 1) return declared[0] as string;
  const known = declared.length > 0 ? `it declares ${declared.join(', ')}` : 'it declares no upstreams:';
  throw usageError(`contracts import: ${path} has no upstream named ${JSON.stringify(wanted)} (${known}): pass --name <upstream>`);
}

function readBounded(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw usageError(`contracts import: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw usageError(`contracts import: --out ${path} is not a file`);
    const size = stat.size;
    if (size > MAX_FILE_BYTES) throw new CliError(EXIT.failed, `contracts import: ${path} is ${size} bytes (at most ${MAX_FILE_BYTES})`);
    const buffer = Buffer.alloc(size);
    const read = readSync(fd, buffer, 0, size, 0);
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
