import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as tcpConnect } from 'node:net';

const NATS_SERVER_BINARY = process.env['NATS_SERVER_BIN'] ?? '/usr/sbin/nats-server';

/**
 * A private JetStream-enabled nats-server for one test file: its own port and storage directory,
 * so a test can SIGKILL and restart it without disturbing anything else.
 */
export class TestNatsServer {
  private process: ChildProcess | null = null;

  private constructor(
    readonly port: number,
    readonly storeDir: string,
  ) {}

  static async start(): Promise<TestNatsServer> {
    const server = new TestNatsServer(await freePort(), mkdtempSync(join(tmpdir(), 'onceport-nats-')));
    await server.restart();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts it again on the same port and storage (after `kill`). */
  async restart(): Promise<void> {
    if (this.process) throw new Error('nats-server is already running');
    const child = spawn(NATS_SERVER_BINARY, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.process = child;
    child.once('exit', () => {
      if (this.process === child) this.process = null;
    });
    await waitForPort(this.port);
  }

  /** Kills the server at once (SIGKILL by default): no flush, no goodbye. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.process;
    if (!child) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
    this.process = null;
  }

  async stop(): Promise<void> {
    await this.kill('SIGTERM');
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nats-server did not listen on ${port} within ${timeoutMs} ms`);
    await sleep(50);
  }
}
