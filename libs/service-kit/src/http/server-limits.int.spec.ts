import { once } from 'node:events';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Socket, connect } from 'node:net';
import { Controller, Get, type INestApplication, Module, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type ServerLimitsEnv, hardenHttpServer } from './server-limits';

const LIMITS: ServerLimitsEnv = {
  ONCEPORT_HTTP_HEADERS_TIMEOUT_MS: 2_000,
  ONCEPORT_HTTP_REQUEST_TIMEOUT_MS: 3_000,
  ONCEPORT_HTTP_KEEP_ALIVE_TIMEOUT_MS: 1_000,
  ONCEPORT_HTTP_MAX_CONNECTIONS: 400,
};
/** How much later than the timeout the server may cut: Node looks once a second, and this machine is loaded. */
const SLACK_MS = 4_000;

@Controller()
class ProbeController {
  @Get('ping')
  ping(): { ok: true } {
    return { ok: true };
  }

  /** An SSE stream that lasts longer than the request timeout. */
  @Get('stream')
  stream(@Res() res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let sent = 0;
    const timer = setInterval(() => {
      sent += 1;
      res.write(`data: ${sent}\n\n`);
      if (sent === 10) {
        clearInterval(timer);
        res.end();
      }
    }, 500);
    res.once('close', () => clearInterval(timer));
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

async function startApp(limits: ServerLimitsEnv): Promise<{ app: INestApplication; port: number }> {
  const app = await NestFactory.create(ProbeModule, { logger: false, bodyParser: false });
  hardenHttpServer(app, limits);
  await app.listen(0, '127.0.0.1');
  return { app, port: (app.getHttpServer().address() as AddressInfo).port };
}

/** A connection that sends a request line and then one more header every 300 ms, never finishing its head. */
function slowClient(port: number): { socket: Socket; closed: Promise<number> } {
  const socket = connect(port, '127.0.0.1');
  let trickle: NodeJS.Timeout | undefined;
  socket.on('connect', () => {
    socket.write('GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    trickle = setInterval(() => socket.write('X-Slow: 1\r\n'), 300);
  });
  socket.on('error', () => undefined); // a reset is one way of being closed
  socket.resume();
  // Not events.once: it rejects on the 'error' a reset emits before 'close'.
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => {
      clearInterval(trickle);
      resolve(Date.now());
    }),
  );
  return { socket, closed };
}

/** Server limits on a real Nest HTTP server (the function bootstrapService and the embedded start call). */
describe('hardenHttpServer (real Nest HTTP server)', () => {
  let app: INestApplication;
  let port: number;

  beforeAll(async () => ({ app, port } = await startApp(LIMITS)));
  afterAll(async () => app?.close());

  it('300 clients trickling their headers are cut within the headers timeout, and a normal call gets through meanwhile', async () => {
    const started = Date.now();
    const slow = Array.from({ length: 300 }, () => slowClient(port));
    await Promise.all(slow.map(({ socket }) => (socket.connecting ? once(socket, 'connect') : Promise.resolve())));
    const normal = await fetch(`http://127.0.0.1:${port}/ping`, { signal: AbortSignal.timeout(5_000) });
    expect(normal.status).toBe(200);
    expect(await normal.json()).toEqual({ ok: true });
    expect(slow.filter(({ socket }) => socket.destroyed)).toHaveLength(0); // still open while the call went through
    const closedAt = await Promise.all(slow.map(({ closed }) => closed));
    const latest = Math.max(...closedAt) - started;
    expect(latest).toBeLessThan(LIMITS.ONCEPORT_HTTP_HEADERS_TIMEOUT_MS + SLACK_MS);
  }, 30_000);

  it('a streaming response outlives the request timeout: every event arrives', async () => {
    const started = Date.now();
    const response = await fetch(`http://127.0.0.1:${port}/stream`, { signal: AbortSignal.timeout(20_000) });
    const text = await response.text();
    expect(Date.now() - started).toBeGreaterThan(LIMITS.ONCEPORT_HTTP_REQUEST_TIMEOUT_MS);
    expect(text.match(/^data: \d+$/gm)).toHaveLength(10);
  }, 30_000);

  it('answers without X-Powered-By', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/ping`);
    expect(response.headers.get('x-powered-by')).toBeNull();
  });

  it('a graceful stop is not held open by a client trickling its headers: it ends once the request timeout passed', async () => {
    const closing = await startApp(LIMITS);
    const slow = slowClient(closing.port);
    await once(slow.socket, 'connect');
    const server = closing.app.getHttpServer() as Server;
    await waitUntil(async () => (await connectionCount(server)) === 1);
    const started = Date.now();
    await closing.app.close(); // without the straggler timer this never resolves: the client trickles for ever
    await slow.closed;
    expect(Date.now() - started).toBeLessThan(LIMITS.ONCEPORT_HTTP_REQUEST_TIMEOUT_MS + SLACK_MS);
  }, 30_000);

  it('past the connection cap a new socket is closed at once, and a slot freed lets the next one in', async () => {
    const capped = await startApp({ ...LIMITS, ONCEPORT_HTTP_MAX_CONNECTIONS: 3 });
    const held = Array.from({ length: 3 }, () => slowClient(capped.port));
    try {
      await Promise.all(held.map(({ socket }) => once(socket, 'connect')));
      // The server counts a socket once it accepted it: wait until it holds all three.
      const server = capped.app.getHttpServer() as Server;
      await waitUntil(async () => (await connectionCount(server)) === 3);
      const refused = slowClient(capped.port);
      const tried = Date.now();
      const refusedAt = await refused.closed;
      expect(held.filter(({ socket }) => socket.destroyed)).toHaveLength(0);
      expect(refusedAt - tried).toBeLessThan(LIMITS.ONCEPORT_HTTP_HEADERS_TIMEOUT_MS);
      held[0]?.socket.destroy();
      await waitUntil(async () => (await connectionCount(server)) <= 2);
      const response = await fetch(`http://127.0.0.1:${capped.port}/ping`, { signal: AbortSignal.timeout(5_000) });
      expect(response.status).toBe(200);
    } finally {
      // A closing server stops enforcing the headers timeout: the trickling clients go first.
      for (const { socket } of held) socket.destroy();
      await capped.app.close();
    }
  }, 30_000);
});

function connectionCount(server: Server): Promise<number> {
  return new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
