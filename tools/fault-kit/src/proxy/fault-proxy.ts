import { createServer, type Socket } from 'node:net';
import { assertLoopback, type HostPort } from '../net/loopback';
import { type Fault, validateFault } from './fault';
import { ProxyConnection, type ProxyConnectionInfo, resetSocket } from './proxy-connection';

export interface FaultProxyOptions {
  /** Loopback only; default 127.0.0.1. */
  readonly listenHost?: string;
  /** 0 (the default) picks a free port; read it from `proxy.port`. */
  readonly listenPort?: number;
  /** Loopback only. */
  readonly upstream: HostPort;
}

export interface ProxyByteCounts {
  /** Bytes written to the upstream, over all connections. */
  readonly toUpstream: number;
  /** Bytes written to clients, over all connections. */
  readonly toClient: number;
  /** Bytes read and thrown away (blackhole, past a reset limit, in flight on a dropped link). */
  readonly dropped: number;
}

export interface FaultProxy {
  readonly host: string;
  readonly port: number;
  /** `host:port` of the proxy, for configuration that wants exactly that. */
  readonly address: string;
  /** `scheme://host:port` plus an optional path: `proxy.url('http', '/health')`. */
  url(scheme: string, path?: string): string;
  /** The same URL with its host and port swapped for the proxy's (credentials, path and query kept). */
  rewriteUrl(url: string): string;
  /** The fault in force, `null` for none. */
  fault(): Fault | null;
  /** Replaces the fault in force, on live and new connections. */
  setFault(fault: Fault): void;
  /** Heals: forwarding resumes, held bytes and closes go through. */
  clear(): void;
  /** Closes every live connection now (FIN by default, or RST); returns how many. */
  dropExisting(how?: 'close' | 'reset'): number;
  connections(): readonly ProxyConnectionInfo[];
  bytes(): ProxyByteCounts;
  /** Connections accepted and refused since start. */
  totals(): { readonly accepted: number; readonly refused: number };
  /** Stops listening and closes every connection. */
  stop(): Promise<void>;
}

/**
 * Starts a TCP proxy on loopback that forwards to `upstream` and injects faults on demand.
 * @example
 * const proxy = await startFaultProxy({ upstream: { host: '127.0.0.1', port: 5432 } });
 * proxy.setFault({ kind: 'latency', ms: 200 });
 */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const listenHost = options.listenHost ?? '127.0.0.1';
  assertLoopback(listenHost, 'listen');
  assertLoopback(options.upstream.host, 'upstream');
  const upstream = { host: options.upstream.host, port: options.upstream.port };
  const live = new Map<number, ProxyConnection>();
  const bytes = { toUpstream: 0, toClient: 0, dropped: 0 };
  const totals = { accepted: 0, refused: 0 };
  const counters = {
    forwarded: (direction: 'to_upstream' | 'to_client', count: number) => {
      if (direction === 'to_upstream') bytes.toUpstream += count;
      else bytes.toClient += count;
    },
    dropped: (count: number) => {
      bytes.dropped += count;
    },
  };
  let current: Fault | null = null;
  let nextId = 1;

  const server = createServer({ allowHalfOpen: true }, (client: Socket) => {
    // A refused client may reset first; its error is the expected outcome, not news.
    client.on('error', () => undefined);
    if (current?.kind === 'refuse') {
      totals.refused += 1;
      resetSocket(client);
      return;
    }
    totals.accepted += 1;
    const connection = new ProxyConnection(nextId++, client, upstream, counters, (closed) => live.delete(closed.id));
    live.set(connection.id, connection);
    connection.apply(current);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listenPort ?? 0, listenHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the proxy has no TCP address');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const port = address.port;

  const applyToAll = () => {
    for (const connection of live.values()) connection.apply(current);
  };
  const dropExisting = (how: 'close' | 'reset' = 'close'): number => {
    const count = live.size;
    for (const connection of [...live.values()]) connection.drop(how);
    return count;
  };

  return {
    host,
    port,
    address: `${host}:${port}`,
    url: (scheme, path = '') => `${scheme}://${host}:${port}${path}`,
    rewriteUrl: (text) => {
      const url = new URL(text);
      url.hostname = host;
      url.port = String(port);
      return url.toString();
    },
    fault: () => current,
    setFault: (fault) => {
      current = validateFault(fault);
      applyToAll();
    },
    clear: () => {
      current = null;
      applyToAll();
    },
    dropExisting,
    connections: () => [...live.values()].map((connection) => connection.info()),
    bytes: () => ({ ...bytes }),
    totals: () => ({ ...totals }),
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      dropExisting('close');
      await closed;
    },
  };
}
