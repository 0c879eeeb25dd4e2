import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaultKitError } from '../errors';
import { freePort } from '../net/ports';
import { trackLeftover, untrackLeftover } from '../process/leftovers';
import { ControlledProcess, type ExitInfo, type StopOptions } from '../process/controlled-process';

export const NATS_SERVER_BINARY = process.env['NATS_SERVER_BIN'] ?? '/usr/sbin/nats-server';

export interface NatsServerOptions {
  /** Default: a free port. */
  readonly port?: number;
  /** JetStream storage; default a new temp dir, removed by `stop()`. A given dir is left in place. */
  readonly storeDir?: string;
  readonly binary?: string;
  /** Copy its log lines to stderr (for the CLI). */
  readonly echo?: boolean;
  /** Serve nats-server's HTTP monitoring (`/varz`) on a free port of its own: see `messageCounts`. */
  readonly monitor?: boolean;
}

/** What the server counted since it started (nats-server's `/varz`): every client's messages, JetStream's own included. */
export interface NatsMessageCounts {
  readonly inMsgs: number;
  readonly outMsgs: number;
  readonly inBytes: number;
  readonly outBytes: number;
}

/**
 * A private JetStream nats-server on 127.0.0.1 (its own port and store), to SIGKILL, SIGSTOP and
 * restart — with its store kept, or wiped as after a lost disk.
 * @example
 * const nats = await NatsServer.start();
 * await nats.kill(); await nats.restart({ wipeStore: true });
 */
export class NatsServer {
  private constructor(
    readonly port: number,
    readonly storeDir: string,
    private readonly ownsStore: boolean,
    private readonly process: ControlledProcess,
    /** The monitoring port (`monitor: true`), else null. */
    readonly monitorPort: number | null = null,
  ) {}

  static async start(options: NatsServerOptions = {}): Promise<NatsServer> {
    const binary = options.binary ?? NATS_SERVER_BINARY;
    if (!existsSync(binary))
      throw new FaultKitError('binary_missing', `nats-server not found at ${binary} (set NATS_SERVER_BIN or run npm run services)`);
    const port = options.port ?? (await freePort());
    const storeDir = options.storeDir ?? mkdtempSync(join(tmpdir(), 'onceport-fault-nats-'));
    const monitorPort = options.monitor ? await freePort() : null;
    try {
      const server = await ControlledProcess.start({
        name: `nats-server:${port}`,
        command: binary,
        args: ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port), ...(monitorPort === null ? [] : ['-m', String(monitorPort)])],
        // Logged once the client listener and JetStream are both up; an open port alone comes earlier.
        ready: { logLine: 'Server is ready' },
        echo: options.echo ?? false,
      });
      const nats = new NatsServer(port, storeDir, options.storeDir === undefined, server, monitorPort);
      // The process itself is SIGKILLed on exit by ControlledProcess; its temp store goes too.
      if (nats.ownsStore) trackLeftover(nats, () => rmSync(storeDir, { recursive: true, force: true }));
      return nats;
    } catch (error: unknown) {
      if (options.storeDir === undefined) rmSync(storeDir, { recursive: true, force: true });
      throw error;
    }
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.process.running;
  }

  get pid(): number | null {
    return this.process.pid;
  }

  /** This run's log (nats-server logs to stderr). */
  output(): string {
    return this.process.output();
  }

  /** The server's message counters now (its HTTP monitoring must be on: `monitor: true`). */
  async messageCounts(): Promise<NatsMessageCounts> {
    if (this.monitorPort === null)
      throw new FaultKitError('not_monitored', 'start the nats-server with monitor: true to read its counters');
    const response = await fetch(`http://127.0.0.1:${this.monitorPort}/varz`, { signal: AbortSignal.timeout(5_000) });
    if (!response.ok) throw new FaultKitError('not_monitored', `nats-server /varz answered ${response.status}`);
    const varz = (await response.json()) as { in_msgs: number; out_msgs: number; in_bytes: number; out_bytes: number };
    return { inMsgs: varz.in_msgs, outMsgs: varz.out_msgs, inBytes: varz.in_bytes, outBytes: varz.out_bytes };
  }

  /** SIGKILL by default: no flush, no goodbye to clients. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<ExitInfo> {
    return this.process.kill(signal);
  }

  /** SIGSTOP: connections stay open, nothing answers. */
  async pause(): Promise<void> {
    await this.process.pause();
  }

  async resume(): Promise<void> {
    await this.process.resume();
  }

  /**
   * Starts it again on the same port; stops it first if it runs (`stop` options, default SIGTERM).
   * `wipeStore` deletes the JetStream store in between: streams, consumers and messages are gone.
   */
  async restart(options: StopOptions & { readonly wipeStore?: boolean } = {}): Promise<void> {
    await this.process.stop(options);
    if (options.wipeStore) {
      for (const entry of readdirSync(this.storeDir)) rmSync(join(this.storeDir, entry), { recursive: true, force: true });
    }
    await this.process.restart();
  }

  /** `restart({ wipeStore: true })` after a SIGKILL: the server comes back with nothing. */
  async restartWiped(): Promise<void> {
    await this.process.kill('SIGKILL');
    await this.restart({ wipeStore: true });
  }

  /** Stops it (SIGTERM, then SIGKILL) and removes a store it created. */
  async stop(): Promise<void> {
    await this.process.stop({ graceMs: 3_000 });
    if (this.ownsStore) rmSync(this.storeDir, { recursive: true, force: true });
    untrackLeftover(this);
  }
}
