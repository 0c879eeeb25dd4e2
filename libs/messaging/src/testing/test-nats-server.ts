import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

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

  /**
   * Starts it again on the same port and storage (after `kill`). Ready means its own "Server is
   * ready" line, not just an open port (which another process could hold); an early exit (the port
   * taken, a bad store) fails with its log.
   */
  async restart(timeoutMs = 15_000): Promise<void> {
    if (this.process) throw new Error('nats-server is already running');
    const child = spawn(NATS_SERVER_BINARY, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.process = child;
    let log = '';
    // Always drained, so a chatty server never blocks on a full pipe; the tail is kept for errors.
    child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString('utf8')).slice(-16_384)));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    void exited.then(() => {
      if (this.process === child) this.process = null;
    });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (log.includes('Server is ready')) return;
      if (this.process !== child) throw new Error(`nats-server on ${this.port} exited while starting:\n${log}`);
      if (Date.now() > deadline) throw new Error(`nats-server on ${this.port} was not ready within ${timeoutMs} ms:\n${log}`);
      await sleep(20);
    }
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

  /**
   * Cuts a stopped server's stream back to its first `keep` messages, as a server that lost its
   * unsynced tail in a crash comes back; its consumers' state stays as it was (ahead of the stream).
   * Reads nats-server 2.9's file store: one block of records `[length:u32 LE][seq][ts][subject]...`.
   */
  truncateStream(stream: string, keep: number): void {
    if (this.process) throw new Error('stop the server before truncating its store');
    const dir = join(this.storeDir, 'jetstream', '$G', 'streams', stream, 'msgs');
    const blocks = readdirSync(dir).filter((name) => name.endsWith('.blk'));
    if (blocks.length !== 1) throw new Error(`expected one message block in ${dir}, found ${blocks.length}`);
    const block = join(dir, blocks[0] ?? '');
    const bytes = readFileSync(block);
    let offset = 0;
    for (let kept = 0; kept < keep; kept++) {
      if (offset + 4 > bytes.length) throw new Error(`stream ${stream} holds fewer than ${keep} messages`);
      offset += bytes.readUInt32LE(offset) & 0x7fff_ffff; // the high bit flags a record with headers
    }
    truncateSync(block, offset);
    // Without its index files the server rebuilds the stream's state from the block it finds.
    for (const name of readdirSync(dir)) if (!name.endsWith('.blk')) rmSync(join(dir, name));
  }

  /** Wipes a stopped server's storage: it comes back with no streams and no consumers. */
  wipeStore(): void {
    if (this.process) throw new Error('stop the server before wiping its store');
    rmSync(join(this.storeDir, 'jetstream'), { recursive: true, force: true });
  }

  async stop(): Promise<void> {
    await this.kill('SIGTERM');
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}

/** A port nothing listens on right now (the OS picks it; bound and released at once). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
