import type { IncomingMessage } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { Controller, type INestApplication, type LoggerService, Module, Post, Req } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { readJsonBody } from './read-json-body';
import { type ServerLimitsEnv, hardenHttpServer } from './server-limits';

const LIMITS: ServerLimitsEnv = {
  ONCEPORT_HTTP_HEADERS_TIMEOUT_MS: 10_000,
  ONCEPORT_HTTP_REQUEST_TIMEOUT_MS: 30_000,
  ONCEPORT_HTTP_KEEP_ALIVE_TIMEOUT_MS: 5_000,
  ONCEPORT_HTTP_MAX_CONNECTIONS: 100,
};

let bodyReads = 0;

@Controller()
class EchoController {
  @Post('echo')
  async echo(@Req() req: IncomingMessage): Promise<unknown> {
    bodyReads += 1;
    return readJsonBody(req, 1024 * 1024);
  }

  /** Reads its body by hand, as some controllers do: Node's own "aborted" error reaches Nest. */
  @Post('raw')
  async raw(@Req() req: IncomingMessage): Promise<number> {
    bodyReads += 1;
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) size += chunk.length;
    return size;
  }

  @Post('broken')
  broken(): never {
    throw new Error('a real server failure');
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

/** What Nest itself would log (errors with stacks), kept instead of printed. */
class CapturingLogger implements LoggerService {
  readonly errors: unknown[][] = [];
  log(): void {
    // Nest's start-up lines are not what this test looks at.
  }
  warn(): void {
    // Likewise.
  }
  error(...args: unknown[]): void {
    this.errors.push(args);
  }
}

/** A client that goes away mid-body, at a real Nest HTTP server hardened as every service is. */
describe('a client abort (real Nest HTTP server)', () => {
  let app: INestApplication;
  let port: number;
  const nestLogger = new CapturingLogger();
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    app = await NestFactory.create(EchoModule, { logger: nestLogger, bodyParser: false });
    hardenHttpServer(app, LIMITS, (level, message, fields) => lines.push({ level, message, fields }));
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => app?.close());

  beforeEach(() => {
    bodyReads = 0;
    lines.length = 0;
    nestLogger.errors.length = 0;
  });

  async function abortMidBody(path: string): Promise<void> {
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST ${path}?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"half":`);
    // Wait until the handler is reading the body, then go away.
    while (bodyReads === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    socket.destroy();
    const deadline = Date.now() + 10_000;
    while (lines.length === 0 && nestLogger.errors.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
  }

  it.each(['/echo', '/raw'])('at %s is one info line naming method and path, and no error or stack trace', async (path) => {
    await abortMidBody(path);
    expect(nestLogger.errors).toEqual([]);
    expect(lines).toEqual([{ level: 'info', message: 'client aborted the request', fields: { method: 'POST', path } }]);
  });

  it('any other error still goes to Nest: 500 and its error log', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/broken`, { method: 'POST' });
    expect(response.status).toBe(500);
    expect(nestLogger.errors.length).toBeGreaterThan(0);
    expect(lines).toEqual([]);
  });

  it('a whole request is still answered normally', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/echo`, { method: 'POST', body: '{"a":1}' });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ a: 1 });
  });
});
