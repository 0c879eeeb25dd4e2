import { connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { FaultKitError } from '../errors';

/**
 * A port that was free a moment ago on 127.0.0.1. For servers that cannot listen on port 0 and
 * report back (nats-server, PostgreSQL); a race with another process is possible but rare.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port assigned'))));
    });
  });
}

/** Whether something accepts TCP connections on host:port right now. */
export async function isPortOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface WaitForPortOptions {
  readonly host?: string;
  readonly timeoutMs?: number;
  /** Stops waiting early (e.g. the process that should listen has exited). */
  readonly giveUp?: () => string | null;
}

/** Polls until host:port accepts a connection; throws `timeout` (or `not_ready` when `giveUp` says why). */
export async function waitForPort(port: number, options: WaitForPortOptions = {}): Promise<void> {
  const { host = '127.0.0.1', timeoutMs = 10_000, giveUp } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await isPortOpen(port, host)) return;
    const reason = giveUp?.();
    if (reason) throw new FaultKitError('not_ready', reason);
    if (Date.now() > deadline) throw new FaultKitError('timeout', `nothing listened on ${host}:${port} within ${timeoutMs} ms`);
    await sleep(25);
  }
}
