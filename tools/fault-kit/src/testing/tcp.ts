import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** An echo server that remembers what each connection received and how it ended. */
export interface EchoServer {
  readonly port: number;
  /** One record per accepted connection, in order. */
  readonly connections: EchoConnection[];
  stop(): Promise<void>;
}

export interface EchoConnection {
  received: Buffer;
  ended: boolean;
  closed: boolean;
  error: string | null;
  readonly socket: Socket;
}

export async function startEchoServer(): Promise<EchoServer> {
  const connections: EchoConnection[] = [];
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    const record: EchoConnection = { received: Buffer.alloc(0), ended: false, closed: false, error: null, socket };
    connections.push(record);
    socket.on('data', (chunk: Buffer) => {
      record.received = Buffer.concat([record.received, chunk]);
      socket.write(chunk);
    });
    socket.on('end', () => {
      record.ended = true;
      socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      record.error = error.code ?? error.message;
    });
    socket.on('close', () => {
      record.closed = true;
    });
  });
  const port = await listen(server);
  return {
    port,
    connections,
    stop: async () => {
      for (const record of connections) record.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A node:http server answering `200 <method> <url>` (after `delayMs`), counting requests. */
export interface TestHttpServer {
  readonly port: number;
  readonly requests: { method: string; url: string }[];
  stop(): Promise<void>;
}

export async function startHttpServer(): Promise<TestHttpServer> {
  const requests: { method: string; url: string }[] = [];
  const server: HttpServer = createHttpServer((request: IncomingMessage, response) => {
    requests.push({ method: request.method ?? '?', url: request.url ?? '?' });
    request.resume();
    request.on('end', () => response.end(`${request.method} ${request.url}`));
  });
  const port = await listen(server);
  return {
    port,
    requests,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A client socket that records what it receives and how it ends. */
export interface TestClient {
  readonly socket: Socket;
  received(): Buffer;
  readonly events: { ended: boolean; closed: boolean; error: string | null };
  /** Resolves once at least `bytes` bytes arrived. */
  waitForBytes(bytes: number): Promise<Buffer>;
  waitForClose(): Promise<void>;
  /** Resolves on a FIN from the other side, or a close. */
  waitForEnd(): Promise<void>;
}

export async function connectClient(port: number): Promise<TestClient> {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  let received = Buffer.alloc(0);
  const events = { ended: false, closed: false, error: null as string | null };
  const waiters: (() => void)[] = [];
  const notify = () => waiters.splice(0).forEach((wake) => wake());
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    notify();
  });
  socket.on('end', () => {
    events.ended = true;
    notify();
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    events.error = error.code ?? error.message;
  });
  socket.on('close', () => {
    events.closed = true;
    notify();
  });
  const until = async (done: () => boolean): Promise<void> => {
    while (!done()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    socket,
    received: () => received,
    events,
    waitForBytes: async (bytes) => {
      await until(() => received.length >= bytes || events.closed);
      if (received.length < bytes) throw new Error(`closed after ${received.length} of ${bytes} bytes (${events.error ?? 'no error'})`);
      return received;
    },
    waitForClose: () => until(() => events.closed),
    waitForEnd: () => until(() => events.ended || events.closed),
  };
}

/** Connects and resolves with how the connection ended: the error code, or `closed` for a clean close. */
export async function connectAndWaitForEnd(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let outcome = 'closed';
    socket.on('error', (error: NodeJS.ErrnoException) => {
      outcome = error.code ?? error.message;
    });
    socket.on('close', () => resolve(outcome));
  });
}

/** Resolves once `check()` is true, polling every 10 ms; rejects after `timeoutMs`. */
export async function eventually(check: () => boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function listen(server: Server | HttpServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}
