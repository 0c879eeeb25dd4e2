import { spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../net/ports';
import { trackLeftover, untrackLeftover } from '../process/leftovers';
import { findPostgresBinDir, pgCommand, postgresUser, runPgTool, runsAsRoot } from './postgres-binaries';

export type ShutdownMode = 'smart' | 'fast' | 'immediate';

export interface PostgresClusterOptions {
  /** Default: a free port. */
  readonly port?: number;
  /** Default: the newest /usr/lib/postgresql/<version>/bin (or ONCEPORT_PG_BIN_DIR). */
  readonly binDir?: string;
}

/**
 * A private PostgreSQL cluster for fault tests: its own data dir under /tmp (owned by `postgres`),
 * its own port on 127.0.0.1, trust auth, no Unix socket. `stop('immediate')` is the crash-like
 * shutdown (no checkpoint: the next start replays the WAL).
 * @example
 * const pg = await PostgresCluster.create();
 * await pg.stop('immediate'); await pg.start();
 * await pg.destroy();
 */
export class PostgresCluster {
  private up = false;

  private constructor(
    readonly port: number,
    readonly baseDir: string,
    private readonly binDir: string,
  ) {}

  /** initdb (about a second) and start. */
  static async create(options: PostgresClusterOptions = {}): Promise<PostgresCluster> {
    const binDir = options.binDir ?? findPostgresBinDir();
    const port = options.port ?? (await freePort());
    const baseDir = mkdtempSync('/tmp/onceport-fault-pg-');
    const cluster = new PostgresCluster(port, baseDir, binDir);
    try {
      if (runsAsRoot()) {
        const { uid, gid } = postgresUser();
        chownSync(baseDir, uid, gid);
      }
      await runPgTool(binDir, 'initdb', ['-D', cluster.dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
      // Loopback only, and no Unix socket that could collide with the system cluster's.
      appendFileSync(
        join(cluster.dataDir, 'postgresql.conf'),
        `\n# onceport fault-kit\nport = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n`,
      );
      await cluster.start();
      return cluster;
    } catch (error: unknown) {
      await cluster.destroy();
      throw error;
    }
  }

  get dataDir(): string {
    return join(this.baseDir, 'data');
  }

  get logFile(): string {
    return join(this.baseDir, 'postgres.log');
  }

  get running(): boolean {
    return this.up;
  }

  /** `postgres://postgres@127.0.0.1:<port>/<database>` (trust auth: no password). */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** The server log so far (startup, recovery, shutdown lines). */
  log(): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8') : '';
  }

  /** `pg_ctl start -w`: returns once it accepts connections (after crash recovery, if any). */
  async start(): Promise<void> {
    await runPgTool(this.binDir, 'pg_ctl', ['-D', this.dataDir, '-l', this.logFile, '-w', '-t', '60', 'start']);
    this.up = true;
    trackLeftover(this, () => this.stopNow());
  }

  /** `pg_ctl stop -m <mode>`; `immediate` aborts every backend without a checkpoint, like a crash. */
  async stop(mode: ShutdownMode = 'fast'): Promise<void> {
    if (!this.up) return;
    await runPgTool(this.binDir, 'pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
    this.up = false;
    untrackLeftover(this);
  }

  /** Stops (`fast` unless told otherwise) and starts again on the same port and data. */
  async restart(mode: ShutdownMode = 'fast'): Promise<void> {
    await this.stop(mode);
    await this.start();
  }

  /** Stops it at once and deletes the data dir. */
  async destroy(): Promise<void> {
    try {
      await this.stop('immediate');
    } finally {
      untrackLeftover(this);
      rmSync(this.baseDir, { recursive: true, force: true });
    }
  }

  /** For the exit hook: synchronous, best effort. */
  private stopNow(): void {
    const { command, args } = pgCommand(this.binDir, 'pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']);
    spawnSync(command, args, { cwd: '/tmp', stdio: 'ignore', timeout: 10_000 });
    rmSync(this.baseDir, { recursive: true, force: true });
  }
}
