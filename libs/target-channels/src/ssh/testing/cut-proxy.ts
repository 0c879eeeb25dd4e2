import { type Server, type Socket, createConnection, createServer } from 'node:net';

export interface CutProxy {
  readonly port: number;
  /** Connections that have been opened so far. */
  connections(): number;
  /** Resets every open connection in both directions, as a network failure would. */
  cutAll(): void;
  close(): Promise<void>;
}

/**
 * A loopback TCP relay in front of a server, for tests that drop an SSH session mid-command
 * without touching either end's processes.
 */
export async function startCutProxy(targetPort: number): Promise<CutProxy> {
  const open = new Set<Socket>();
  let opened = 0;
  const server: Server = createServer((client) => {
    opened += 1;
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined); // a reset is what these tests are about
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('cut proxy has no port');
  return {
    port: address.port,
    connections: () => opened,
    cutAll: () => {
      for (const socket of open) socket.resetAndDestroy();
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
