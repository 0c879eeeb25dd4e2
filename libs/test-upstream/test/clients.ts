import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';
import { stdioUpstreamCommand } from '../src/stdio-upstream';
import { TASKS_EXTENSION } from '../src/upstream-server';

export const MODERN = '2026-07-28';
export const AnyResult = z.object({}).passthrough();

export type Negotiation = 'modern' | 'legacy' | 'auto';

export interface ClientOptions {
  readonly negotiation?: Negotiation;
  readonly tasks?: boolean;
}

function newClient(options: ClientOptions): Client {
  const negotiation = options.negotiation ?? 'modern';
  const mode = negotiation === 'modern' ? { pin: MODERN } : negotiation;
  return new Client(
    { name: 'test-upstream-spec', version: '1.0.0' },
    { versionNegotiation: { mode }, ...(options.tasks ? { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } } : {}) },
  );
}

/** The real v2 client over Streamable HTTP. */
export async function httpClient(url: string, options: ClientOptions = {}): Promise<Client> {
  const client = newClient(options);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** The real v2 client over stdio, spawning the upstream; `transport.pid` is the upstream process. */
export async function stdioClient(
  stateDir: string,
  options: ClientOptions & { taskDelayMs?: number | null } = {},
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const client = newClient(options);
  const transport = new StdioClientTransport({ ...stdioUpstreamCommand(stateDir, options), stderr: 'pipe' });
  await client.connect(transport);
  return { client, transport };
}

export function tempStateDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'test-upstream-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Polls until `ok` holds, failing after `timeoutMs`: tests wait for states, never for time. */
export async function until<T>(probe: () => T | Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`state not reached within ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const structured = (result: unknown): Record<string, unknown> =>
  (result as { structuredContent: Record<string, unknown> }).structuredContent;

interface RawTransport {
  onmessage?: (message: never) => void;
  onerror?: (error: Error) => void;
  start(): Promise<void>;
  send(message: never): Promise<void>;
}

/**
 * A 2026-07-28 request sent on a bare transport, with the per-request envelope written by hand: the
 * v2 Client (2.4.0) does not decode a task result (UnsupportedResultType), so a task-creating call
 * goes around it. The transport is started on first use.
 */
export function rawRequester(transport: RawTransport, options: { tasks?: boolean } = {}) {
  const waiting = new Map<string, { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  let started: Promise<void> | null = null;
  let next = 0;
  transport.onmessage = ((message: { id?: string; result?: Record<string, unknown>; error?: unknown }) => {
    const pending = message.id === undefined ? undefined : waiting.get(message.id);
    if (!pending) return;
    waiting.delete(message.id as string);
    if (message.result) pending.resolve(message.result);
    else pending.reject(Object.assign(new Error(JSON.stringify(message.error)), { rpcError: message.error }));
  }) as never;
  transport.onerror = (error) => waiting.forEach((pending) => pending.reject(error));
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'test-upstream-raw', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': options.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
  };
  return async (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> => {
    started ??= transport.start();
    await started;
    const id = `raw-${++next}`;
    const answered = new Promise<Record<string, unknown>>((resolve, reject) => waiting.set(id, { resolve, reject }));
    const meta = { ...envelope, ...((params['_meta'] as Record<string, unknown> | undefined) ?? {}) };
    await transport.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } } as never);
    return answered;
  };
}
