import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';
import { CliError, EXIT } from '../cli/exit-codes';
import type { UpstreamSource } from './import-source';
import { upstreamError } from './upstream-errors';

/** What is read from an upstream, bounded so a hostile or broken server cannot make the CLI (or the file) huge. */
export const IMPORT_BOUNDS = {
  maxTools: 500,
  maxPages: 50,
  /** One tool's input schema, as JSON. */
  maxSchemaBytes: 64 * 1024,
  maxSchemaDepth: 32,
  maxDescriptionChars: 4000,
  maxTitleChars: 200,
  /** One stdio message (the SDK's read buffer). */
  maxMessageBytes: 8 * 1024 * 1024,
  stderrTailBytes: 2048,
} as const;

/** A tool as the upstream listed it (only what an import reads). */
export const UpstreamTool = z.looseObject({
  name: z.string().min(1).max(128),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  annotations: z.record(z.string(), z.unknown()).optional(),
  execution: z.record(z.string(), z.unknown()).optional(),
});
export type UpstreamTool = z.output<typeof UpstreamTool>;

const ToolsPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().max(1024).optional() });
const AnyResult = z.looseObject({});

export interface UpstreamListing {
  readonly serverName: string | null;
  readonly protocolVersion: string | null;
  readonly tools: readonly UpstreamTool[];
  /** Tools left out, each with the bound it broke. */
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
}

/** Connects with the v2 client (version negotiation `auto`), lists every page of tools, and closes. */
export async function listUpstreamTools(source: UpstreamSource, timeoutMs: number): Promise<UpstreamListing> {
  // The probe gets part of the time: a legacy stdio server that ignores `server/discover` still has
  // the rest to answer `initialize` (on stdio a probe timeout means legacy, not an outage).
  const probe = { timeoutMs: Math.min(5_000, Math.ceil(timeoutMs / 2)) };
  const client = new Client({ name: 'onceport-contracts-import', version: '0.1.0' }, { versionNegotiation: { mode: 'auto', probe } });
  const stderrTail = { text: '' };
  const transport = transportFor(source, stderrTail);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    await client.connect(transport, { timeout: timeoutMs, signal: deadline.signal });
    const raw = await allPages(client, { timeout: timeoutMs, signal: deadline.signal });
    const info = client.getServerVersion();
    return { serverName: info?.name ?? null, protocolVersion: client.getNegotiatedProtocolVersion() ?? null, ...checkTools(raw) };
  } catch (error) {
    throw upstreamError(error, source, { timedOut: deadline.signal.aborted, timeoutMs, stderr: stderrTail.text });
  } finally {
    clearTimeout(timer);
    // Closing also stops a stdio server; a failure to close must not hide the answer or the real error.
    // The transport is closed on its own too: one still starting when the deadline hit is not yet the client's.
    await client.close().catch((error: unknown) => void error);
    await transport.close().catch((error: unknown) => void error);
  }
}

function transportFor(source: UpstreamSource, stderrTail: { text: string }): StdioClientTransport | StreamableHTTPClientTransport {
  if (source.transport === 'http')
    return new StreamableHTTPClientTransport(source.url, { requestInit: { headers: { ...source.headers } } });
  const transport = new StdioClientTransport({
    command: source.command,
    args: [...source.args],
    env: { ...source.env },
    stderr: 'pipe',
    maxBufferSize: IMPORT_BOUNDS.maxMessageBytes,
  });
  // The server's own words on why it failed: kept short, shown only with an error.
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderrTail.text = (stderrTail.text + chunk.toString('utf8')).slice(-IMPORT_BOUNDS.stderrTailBytes);
  });
  return transport;
}

async function allPages(client: Client, options: { timeout: number; signal: AbortSignal }): Promise<unknown[]> {
  const tools: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < IMPORT_BOUNDS.maxPages; page++) {
    const answer = ToolsPage.safeParse(
      await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, AnyResult, options),
    );
    if (!answer.success) throw new CliError(EXIT.failed, 'the upstream answered tools/list with something that is not a list of tools');
    tools.push(...answer.data.tools);
    if (tools.length > IMPORT_BOUNDS.maxTools)
      throw new CliError(EXIT.failed, `the upstream lists more than ${IMPORT_BOUNDS.maxTools} tools; import refuses that many`);
    cursor = answer.data.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new CliError(EXIT.failed, `the upstream's tools/list did not end within ${IMPORT_BOUNDS.maxPages} pages`);
}

function checkTools(raw: unknown[]): Pick<UpstreamListing, 'tools' | 'skipped'> {
  const tools: UpstreamTool[] = [];
  const skipped: { name: string; reason: string }[] = [];
  const seen = new Set<string>();
  raw.forEach((entry, index) => {
    const parsed = UpstreamTool.safeParse(entry);
    const name = parsed.success ? parsed.data.name : `tools[${index}]`;
    const reason = !parsed.success
      ? 'not a tool (a name of 1–128 characters and an inputSchema object)'
      : tooLarge(parsed.data.inputSchema);
    if (reason === null && seen.has(name)) return skipped.push({ name, reason: 'listed twice (the first one is imported)' });
    if (reason !== null) return skipped.push({ name, reason });
    seen.add(name);
    tools.push(parsed.data as UpstreamTool);
    return undefined;
  });
  return { tools, skipped };
}

function tooLarge(schema: Record<string, unknown>): string | null {
  // Depth first: serialising a schema nested far too deep could itself overflow the stack.
  if (depthOf(schema) > IMPORT_BOUNDS.maxSchemaDepth) return `its input schema nests deeper than ${IMPORT_BOUNDS.maxSchemaDepth} levels`;
  const bytes = Buffer.byteLength(JSON.stringify(schema));
  if (bytes > IMPORT_BOUNDS.maxSchemaBytes) return `its input schema is ${bytes} bytes of JSON (at most ${IMPORT_BOUNDS.maxSchemaBytes})`;
  return null;
}

/** Without recursion: a schema nested 100,000 deep must not overflow the stack. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > IMPORT_BOUNDS.maxSchemaDepth) return deepest;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}
