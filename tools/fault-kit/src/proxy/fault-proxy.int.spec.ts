import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { CleanupStack } from '../cleanup-stack';
import { FaultKitError } from '../errors';
import {
  connectAndWaitForEnd,
  connectClient,
  type EchoServer,
  eventually,
  startEchoServer,
  startHttpServer,
  type TestHttpServer,
} from '../testing/tcp';
import { type FaultProxy, startFaultProxy } from './fault-proxy';

// "Nothing arrives" can only be observed over a window; this one is long enough for loopback.
const QUIET_MS = 250;

describe('fault proxy (real TCP echo and HTTP servers behind it)', () => {
  const cleanup = new CleanupStack();
  let echo: EchoServer;
  let proxy: FaultProxy;

  beforeEach(async () => {
    echo = cleanup.add(await startEchoServer(), (server) => server.stop());
    proxy = cleanup.add(await startFaultProxy({ upstream: { host: '127.0.0.1', port: echo.port } }), (p) => p.stop());
  });
  afterEach(() => cleanup.run());

  it('forwards both ways untouched when there is no fault, and counts', async () => {
    const client = await connectClient(proxy.port);
    client.socket.write('hello');
    expect((await client.waitForBytes(5)).toString()).toBe('hello');
    expect(proxy.bytes()).toEqual({ toUpstream: 5, toClient: 5, dropped: 0 });
    expect(proxy.connections()).toHaveLength(1);
    expect(proxy.connections()[0]).toMatchObject({ bytesToUpstream: 5, bytesToClient: 5 });
    client.socket.end();
    await client.waitForClose();
    await eventually(() => proxy.connections().length === 0, 2_000, 'connection gone from the list');
  });

  it('latency delays each direction by at least the configured time and keeps the order', async () => {
    const client = await connectClient(proxy.port);
    proxy.setFault({ kind: 'latency', ms: 100 });
    const started = Date.now();
    const parts = Array.from({ length: 20 }, (_, index) => `<${index}>`);
    for (const part of parts) client.socket.write(part);
    const expected = parts.join('');
    const echoed = await client.waitForBytes(expected.length);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200); // 100 ms there, 100 ms back
    expect(echoed.toString()).toBe(expected);
    expect(echo.connections[0]!.received.toString()).toBe(expected);
  });

  it('latency on one direction only: the upstream gets the bytes before the delayed answer arrives', async () => {
    const client = await connectClient(proxy.port);
    proxy.setFault({ kind: 'latency', ms: 300, direction: 'to_client' });
    const started = Date.now();
    client.socket.write('ping');
    await eventually(() => echo.connections[0]?.received.length === 4, 5_000, 'upstream received ping');
    expect(client.received().length).toBe(0);
    await client.waitForBytes(4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('blackhole reads and forwards nothing either way, keeps the socket open, and heals on clear()', async () => {
    const client = await connectClient(proxy.port);
    proxy.setFault({ kind: 'blackhole' });
    client.socket.write('lost');
    await eventually(() => proxy.bytes().dropped === 4, 5_000, 'the proxy read and dropped the 4 bytes');
    await sleep(QUIET_MS);
    expect(echo.connections[0]?.received.length ?? 0).toBe(0);
    expect(client.received().length).toBe(0);
    expect(client.events.closed).toBe(false);
    expect(proxy.bytes().dropped).toBe(4);
    proxy.clear();
    client.socket.write('found');
    expect((await client.waitForBytes(5)).toString()).toBe('found');
  });

  it('blackhole towards the client: the upstream hears the request, the client never hears the answer', async () => {
    const client = await connectClient(proxy.port);
    proxy.setFault({ kind: 'blackhole', direction: 'to_client' });
    client.socket.write('ask');
    await eventually(() => echo.connections[0]?.received.toString() === 'ask', 5_000, 'upstream received ask');
    await sleep(QUIET_MS);
    expect(client.received().length).toBe(0);
    expect(proxy.bytes()).toMatchObject({ toUpstream: 3, toClient: 0, dropped: 3 });
  });

  it('reset_after_bytes: the upstream sees exactly N bytes, then both sides get an RST', async () => {
    const client = await connectClient(proxy.port);
    proxy.setFault({ kind: 'reset_after_bytes', bytes: 10 });
    client.socket.write(Buffer.alloc(100, 'x'));
    await client.waitForClose();
    expect(client.events.error).toBe('ECONNRESET');
    await eventually(() => echo.connections[0]?.closed === true, 5_000, 'upstream side closed');
    expect(echo.connections[0]!.received.length).toBe(10);
    expect(echo.connections[0]!.error).toBe('ECONNRESET');
    expect(proxy.bytes().toUpstream).toBe(10);
  });

  it('reset_after_bytes counts across chunks from the moment it is set', async () => {
    const client = await connectClient(proxy.port);
    client.socket.write('before');
    await client.waitForBytes(6);
    proxy.setFault({ kind: 'reset_after_bytes', bytes: 7 });
    client.socket.write('abcd');
    await client.waitForBytes(10);
    client.socket.write('efgh');
    await client.waitForClose();
    expect(client.events.error).toBe('ECONNRESET');
    await eventually(() => echo.connections[0]?.closed === true, 5_000, 'upstream side closed');
    expect(echo.connections[0]!.received.toString()).toBe('beforeabcdefg');
  });

  it('refuse: new connections are reset without reaching the upstream; live ones carry on', async () => {
    const live = await connectClient(proxy.port);
    proxy.setFault({ kind: 'refuse' });
    // The RST may beat the client's own `connect` event: either way the connection is reset.
    expect(await connectAndWaitForEnd(proxy.port)).toBe('ECONNRESET');
    expect(proxy.totals()).toEqual({ accepted: 1, refused: 1 });
    live.socket.write('still here');
    expect((await live.waitForBytes(10)).toString()).toBe('still here');
    expect(echo.connections).toHaveLength(1);
    proxy.clear();
    const after = await connectClient(proxy.port);
    after.socket.write('ok');
    expect((await after.waitForBytes(2)).toString()).toBe('ok');
  });

  it('dropExisting closes every live connection at once, and new ones work', async () => {
    const first = await connectClient(proxy.port);
    const second = await connectClient(proxy.port);
    await eventually(() => echo.connections.length === 2, 5_000, 'two upstream connections');
    expect(proxy.dropExisting()).toBe(2);
    await Promise.all([first.waitForEnd(), second.waitForEnd()]);
    await eventually(() => echo.connections.every((connection) => connection.closed), 5_000, 'upstream sides closed');
    expect(proxy.connections()).toHaveLength(0);
    const third = await connectClient(proxy.port);
    third.socket.write('again');
    expect((await third.waitForBytes(5)).toString()).toBe('again');
  });

  it('dropExisting("reset") resets both sides', async () => {
    const client = await connectClient(proxy.port);
    await eventually(() => echo.connections.length === 1, 5_000, 'upstream connection');
    proxy.dropExisting('reset');
    await client.waitForClose();
    expect(client.events.error).toBe('ECONNRESET');
  });

  it('half_open keeps both sockets open, passes neither bytes nor the FIN, until clear()', async () => {
    const client = await connectClient(proxy.port);
    await eventually(() => echo.connections.length === 1, 5_000, 'upstream connection');
    proxy.setFault({ kind: 'half_open' });
    client.socket.end('bye');
    await sleep(QUIET_MS);
    expect(echo.connections[0]!.received.length).toBe(0);
    expect(echo.connections[0]!.ended).toBe(false);
    expect(client.events.closed).toBe(false);
    proxy.clear();
    expect((await client.waitForBytes(3)).toString()).toBe('bye');
    await client.waitForClose();
    expect(echo.connections[0]!.ended).toBe(true);
  });

  it('refuses to listen on or forward to anything but loopback', async () => {
    await expect(startFaultProxy({ upstream: { host: '10.1.2.3', port: 80 } })).rejects.toMatchObject({ code: 'not_loopback' });
    await expect(startFaultProxy({ listenHost: '0.0.0.0', upstream: { host: '127.0.0.1', port: 80 } })).rejects.toBeInstanceOf(
      FaultKitError,
    );
    expect(() => proxy.setFault({ kind: 'latency', ms: -1 })).toThrow(/ms must be/);
  });

  it('rewrites a server URL to go through the proxy', () => {
    expect(proxy.rewriteUrl('postgres://app:secret@127.0.0.1:5432/onceport?sslmode=disable')).toBe(
      `postgres://app:secret@127.0.0.1:${proxy.port}/onceport?sslmode=disable`,
    );
    expect(proxy.url('nats')).toBe(`nats://127.0.0.1:${proxy.port}`);
  });
});

describe('fault proxy in front of node:http', () => {
  const cleanup = new CleanupStack();
  let http: TestHttpServer;
  let proxy: FaultProxy;

  beforeEach(async () => {
    http = cleanup.add(await startHttpServer(), (server) => server.stop());
    proxy = cleanup.add(await startFaultProxy({ upstream: { host: '127.0.0.1', port: http.port } }), (p) => p.stop());
  });
  afterEach(() => cleanup.run());

  it('answers through the proxy, at least `ms` later under latency', async () => {
    expect((await get(proxy, '/plain')).body).toBe('GET /plain');
    proxy.setFault({ kind: 'latency', ms: 80 });
    const started = Date.now();
    expect((await get(proxy, '/slow')).body).toBe('GET /slow');
    expect(Date.now() - started).toBeGreaterThanOrEqual(160);
  });

  it('half_open: the request is never answered and the socket stays open until clear()', async () => {
    proxy.setFault({ kind: 'half_open' });
    const pending = startGet(proxy, '/held');
    const socket = await pending.socket;
    await eventually(() => proxy.connections().length === 1, 5_000, 'the proxy accepted the connection');
    await sleep(QUIET_MS);
    expect(pending.settled()).toBe(false);
    expect(socket.destroyed).toBe(false);
    expect(http.requests).toHaveLength(0);
    expect(proxy.connections()).toHaveLength(1);
    proxy.clear();
    expect((await pending.response).body).toBe('GET /held');
  });

  it('half_open until stop(): the socket is closed only when the proxy stops', async () => {
    proxy.setFault({ kind: 'half_open' });
    const pending = startGet(proxy, '/never');
    const socket = await pending.socket;
    await sleep(QUIET_MS);
    expect(socket.destroyed).toBe(false);
    const failed = expect(pending.response).rejects.toThrow();
    await proxy.stop();
    await failed;
    expect(http.requests).toHaveLength(0);
  });

  it('reset_after_bytes cuts a request in the middle: the server never sees it whole', async () => {
    proxy.setFault({ kind: 'reset_after_bytes', bytes: 12 });
    await expect(get(proxy, '/cut-short')).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(http.requests).toHaveLength(0);
  });
});

interface Pending {
  readonly socket: Promise<Socket>;
  readonly response: Promise<{ status: number; body: string }>;
  settled(): boolean;
}

function startGet(proxy: FaultProxy, path: string): Pending {
  let settled = false;
  let req: ClientRequest | undefined;
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req = request(proxy.url('http', path), { agent: false }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  }).finally(() => {
    settled = true;
  });
  const socket = new Promise<Socket>((resolve) => req!.once('socket', resolve));
  // Observed through `settled()` and awaited by the test where it matters.
  response.catch(() => undefined);
  return { socket, response, settled: () => settled };
}

async function get(proxy: FaultProxy, path: string): Promise<{ status: number; body: string }> {
  return startGet(proxy, path).response;
}
