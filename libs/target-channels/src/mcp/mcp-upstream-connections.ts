import { createHash } from 'node:crypto';
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { McpUpstream } from '@onceport/domain';
import { ResponseTap } from './mcp-response-tap';
import { type TaskDialect, taskDialectOf } from './mcp-task-wire';

/** One live session with an upstream: a client and, for a local server, its process. */
export interface UpstreamSession {
  readonly client: Client;
  /** The child process of a stdio upstream (null over HTTP). */
  readonly pid: number | null;
  /** Set when the transport closed (the process exited, the server went away): the next send reconnects. */
  closed: boolean;
  /** Raw results of watched calls (task answers the client cannot decode). */
  readonly tap: ResponseTap;
  /** The tasks the upstream offers for `tools/call`, as negotiated; null when none. */
  tasks: TaskDialect | null;
}

/** The `_meta` key each call's watch is keyed by (the execution id; see `EXECUTION_ID_META`). */
const TAP_KEY_META = 'onceport/execution_id';

const CLIENT_INFO = { name: 'onceport-dispatcher', version: '0.1.0' };

/**
 * The dispatcher's sessions with upstream MCP servers, one per upstream and credential: a stdio
 * server runs as a supervised child process (started at the first call, started again at the next
 * call after it died), an HTTP server gets one client whose transport pools its connections.
 * Nothing here decides an outcome; `McpChannel` does.
 */
export class McpUpstreamConnections {
  private readonly sessions = new Map<string, Promise<UpstreamSession>>();

  /** The live session for this upstream, opening (or re-opening) it within the upstream's connect timeout. */
  async session(upstream: McpUpstream, credential: string | null): Promise<UpstreamSession> {
    const key = `${upstream.name}\u0000${credential ? createHash('sha256').update(credential).digest('hex') : ''}`;
    const existing = this.sessions.get(key);
    if (existing) {
      const session = await existing.catch(() => null);
      if (session && !session.closed && processAlive(session.pid)) return session;
      if (session) await session.client.close().catch(() => undefined);
      this.sessions.delete(key);
    }
    const opening = open(upstream, credential, () => this.sessions.delete(key));
    this.sessions.set(key, opening);
    opening.catch(() => this.sessions.delete(key));
    return opening;
  }

  /** Forgets a session after a failure that may have left it unusable (the next call opens a new one). */
  async discard(session: UpstreamSession): Promise<void> {
    session.closed = true;
    for (const [key, candidate] of this.sessions) {
      if ((await candidate.catch(() => null)) === session) this.sessions.delete(key);
    }
    await session.client.close().catch(() => undefined);
  }

  /** Closes every session; stdio servers are stopped. */
  async close(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map(async (opening) => (await opening.catch(() => null))?.client.close().catch(() => undefined)));
  }
}

/** A stdio server whose process is gone is not reused, even before its transport reported the close. */
function processAlive(pid: number | null): boolean {
  if (pid === null) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function open(upstream: McpUpstream, credential: string | null, onClosed: () => void): Promise<UpstreamSession> {
  const client = new Client(CLIENT_INFO, versionNegotiation(upstream));
  const transport = transportFor(upstream, credential);
  const tap = new ResponseTap(TAP_KEY_META);
  tap.install(transport);
  const session: UpstreamSession = { client, pid: null, closed: false, tap, tasks: null };
  client.onclose = () => {
    session.closed = true;
    onClosed();
  };
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer to the MCP handshake within ${upstream.connectTimeoutMs} ms`)),
      upstream.connectTimeoutMs,
    );
  });
  try {
    await Promise.race([client.connect(transport), timedOut]);
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const tasks = taskDialectOf(client.getProtocolEra(), client.getServerCapabilities());
  return Object.assign(session, { pid: transport instanceof StdioClientTransport ? transport.pid : null, tasks });
}

function versionNegotiation(upstream: McpUpstream): ConstructorParameters<typeof Client>[1] {
  switch (upstream.protocol) {
    case 'auto':
      return { versionNegotiation: { mode: 'auto' } };
    case '2026-07-28':
      return { versionNegotiation: { mode: { pin: '2026-07-28' } } };
    case '2025-11-25':
      return {}; // the client's default: the 2025 handshake
    default: {
      const _exhaustive: never = upstream.protocol;
      return _exhaustive;
    }
  }
}

function transportFor(upstream: McpUpstream, credential: string | null): StdioClientTransport | StreamableHTTPClientTransport {
  if (upstream.transport === 'stdio') {
    const env: Record<string, string> = { ...getDefaultEnvironment(), ...upstream.env };
    if (upstream.credentialEnv && credential !== null) env[upstream.credentialEnv] = credential;
    const transport = new StdioClientTransport({
      command: upstream.command,
      args: [...upstream.args],
      env,
      ...(upstream.cwd ? { cwd: upstream.cwd } : {}),
      // A server's diagnostics are its own; read and dropped so a chatty one never blocks on a full pipe.
      stderr: 'pipe',
    });
    transport.stderr?.on('data', () => undefined);
    return transport;
  }
  const url = new URL(upstream.url);
  switch (upstream.auth.kind) {
    case 'none':
      return new StreamableHTTPClientTransport(url);
    case 'bearer':
      return new StreamableHTTPClientTransport(url, {
        requestInit: { headers: credential === null ? {} : { Authorization: `Bearer ${credential}` } },
      });
    case 'oauth_client_credentials':
      return new StreamableHTTPClientTransport(url, {
        authProvider: new ClientCredentialsProvider({
          clientId: upstream.auth.clientId,
          clientSecret: credential ?? '',
          expectedIssuer: upstream.auth.issuer,
          ...(upstream.auth.scope ? { scope: upstream.auth.scope } : {}),
        }),
      });
    default: {
      const _exhaustive: never = upstream.auth;
      return _exhaustive;
    }
  }
}
