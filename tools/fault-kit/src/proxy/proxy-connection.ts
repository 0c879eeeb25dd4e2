import { connect, type Socket } from 'node:net';
import type { HostPort } from '../net/loopback';
import { type Fault, pumpModeFor } from './fault';
import { Pump } from './pump';

export interface ProxyConnectionInfo {
  readonly id: number;
  /** The client's address as the proxy saw it, `host:port`. */
  readonly client: string;
  readonly openedAt: Date;
  readonly bytesToUpstream: number;
  readonly bytesToClient: number;
  /** The last socket error on either side (`ECONNRESET`...), if any. */
  readonly lastError: string | null;
}

export interface ConnectionCounters {
  forwarded(direction: 'to_upstream' | 'to_client', bytes: number): void;
  dropped(bytes: number): void;
}

/** A client socket, its upstream socket, and a pump each way. */
export class ProxyConnection {
  readonly openedAt = new Date();
  private readonly upstream: Socket;
  private readonly toUpstream: Pump;
  private readonly toClient: Pump;
  private bytesToUpstream = 0;
  private bytesToClient = 0;
  private closedSockets = 0;
  private lastError: string | null = null;

  constructor(
    readonly id: number,
    private readonly client: Socket,
    upstream: HostPort,
    counters: ConnectionCounters,
    onClosed: (connection: ProxyConnection) => void,
  ) {
    this.upstream = connect({ host: upstream.host, port: upstream.port, allowHalfOpen: true });
    const hooks = (direction: 'to_upstream' | 'to_client') => ({
      forwarded: (bytes: number) => {
        if (direction === 'to_upstream') this.bytesToUpstream += bytes;
        else this.bytesToClient += bytes;
        counters.forwarded(direction, bytes);
      },
      dropped: (bytes: number) => counters.dropped(bytes),
      limitReached: () => this.reset(),
    });
    this.toUpstream = new Pump(client, this.upstream, hooks('to_upstream'));
    this.toClient = new Pump(this.upstream, client, hooks('to_client'));
    for (const socket of [client, this.upstream]) {
      // Resets and refusals are the point of this proxy: they end a connection (the pumps pass the
      // close on) and are kept for `info()`, not thrown.
      socket.on('error', (error: NodeJS.ErrnoException) => {
        this.lastError = error.code ?? error.message;
      });
      socket.once('close', () => {
        this.closedSockets += 1;
        if (this.closedSockets === 2) {
          this.toUpstream.stop();
          this.toClient.stop();
          onClosed(this);
        }
      });
    }
  }

  apply(fault: Fault | null): void {
    this.toUpstream.setLimit(fault?.kind === 'reset_after_bytes' ? fault.bytes : null);
    this.toUpstream.setMode(pumpModeFor(fault, 'to_upstream'));
    this.toClient.setMode(pumpModeFor(fault, 'to_client'));
  }

  /** An RST to both sides. */
  reset(): void {
    resetSocket(this.client);
    resetSocket(this.upstream);
  }

  /** Closes both sides at once: a FIN (`close`) or an RST (`reset`). */
  drop(how: 'close' | 'reset'): void {
    if (how === 'reset') this.reset();
    else {
      this.client.destroy();
      this.upstream.destroy();
    }
  }

  info(): ProxyConnectionInfo {
    return {
      id: this.id,
      client: `${this.client.remoteAddress ?? '?'}:${this.client.remotePort ?? '?'}`,
      openedAt: this.openedAt,
      bytesToUpstream: this.bytesToUpstream,
      bytesToClient: this.bytesToClient,
      lastError: this.lastError,
    };
  }
}

/** `resetAndDestroy` needs a live TCP handle; a socket already gone just stays gone. */
export function resetSocket(socket: Socket): void {
  if (!socket.destroyed) socket.resetAndDestroy();
}
