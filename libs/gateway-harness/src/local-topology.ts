import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const WORKSPACE_ROOT = join(__dirname, '../../..');
const SCRIPT = join(WORKSPACE_ROOT, 'deploy/local/onceport-local.sh');

/** The services and the console in the script's port order: replica r of app i listens on BASE + i + 1 + 100*r. */
export const LOCAL_APPS = ['intake', 'authorization', 'dispatcher', 'reconciler', 'console'] as const;
export type LocalApp = (typeof LOCAL_APPS)[number];

export interface LocalTopologyOptions {
  /** Environment of every replica (DATABASE_URL, NATS_URL, ONCEPORT_*); written to an env file the script sources, as an operator would. */
  readonly env: Record<string, string>;
  /** Default: all five (the console calls replica 0 of the services). */
  readonly apps?: readonly LocalApp[];
  /** Default 2. */
  readonly replicas?: number;
  /** Seconds a replica gets after SIGTERM before the script SIGKILLs it (default 30). */
  readonly graceSeconds?: number;
  /** Seconds `start` waits for every replica to be ready (default 90; a loaded CI machine needs more). */
  readonly readyTimeoutSeconds?: number;
  /** Where the build goes; default: inside the run dir. Share one between topologies to build once. */
  readonly distDir?: string;
  /** false: use the build already in `distDir`. */
  readonly build?: boolean;
}

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Drives deploy/local/onceport-local.sh for tests that need more than one replica of a service:
 * the same port scheme, the same commands an operator types, each replica its own `node` process.
 *
 * @example
 * const local = await LocalTopology.start({ env: fixture.env(), replicas: 2 });
 * await local.kill('dispatcher', 0);           // SIGKILL: a crash mid-run
 * const stopped = await local.stop();          // SIGTERM everything; exit statuses per replica
 */
export class LocalTopology {
  private constructor(
    readonly apps: readonly LocalApp[],
    readonly replicas: number,
    readonly basePort: number,
    /** pids/, logs/, exits/ and the env file; removed by `stop()` unless asked to keep it. */
    readonly runDir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Builds (unless `build: false`) and starts every replica of every app; resolves once all are ready. */
  static async start(options: LocalTopologyOptions): Promise<LocalTopology> {
    const topology = await LocalTopology.prepare(options);
    await topology.must('start');
    return topology;
  }

  /** Like `start` without starting anything: for tests that drive `start` themselves. */
  static async prepare(options: LocalTopologyOptions): Promise<LocalTopology> {
    const apps = options.apps ?? LOCAL_APPS;
    const replicas = options.replicas ?? 2;
    const runDir = mkdtempSync(join(tmpdir(), 'onceport-local-'));
    const basePort = await freeBasePort(replicas);
    const settings: Record<string, string> = {
      ...options.env,
      ONCEPORT_LOCAL_DIR: runDir,
      ONCEPORT_LOCAL_DIST: options.distDir ?? join(runDir, 'dist'),
      ONCEPORT_LOCAL_APPS: apps.join(' '),
      ONCEPORT_LOCAL_REPLICAS: String(replicas),
      ONCEPORT_LOCAL_BASE_PORT: String(basePort),
      ONCEPORT_LOCAL_BUILD: options.build === false ? '0' : '1',
      ONCEPORT_LOCAL_GRACE: String(options.graceSeconds ?? 30),
      ONCEPORT_LOCAL_TIMEOUT: String(options.readyTimeoutSeconds ?? 90),
    };
    const envFile = join(runDir, 'local.env');
    const quote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;
    writeFileSync(
      envFile,
      Object.entries(settings)
        .map(([key, value]) => `${key}=${quote(value)}\n`)
        .join(''),
    );
    // jest's NODE_ENV=test must not reach the services: they run as in production.
    const { NODE_ENV: _test, ...inherited } = process.env;
    return new LocalTopology(apps, replicas, basePort, runDir, { ...inherited, ONCEPORT_LOCAL_ENV_FILE: envFile });
  }

  port(app: LocalApp, replica: number): number {
    return this.basePort + LOCAL_APPS.indexOf(app) + 1 + 100 * replica;
  }

  url(app: LocalApp, replica: number): string {
    return `http://127.0.0.1:${this.port(app, replica)}`;
  }

  /** Every replica's URL of one app, replica 0 first. */
  urls(app: LocalApp): string[] {
    return Array.from({ length: this.replicas }, (_, replica) => this.url(app, replica));
  }

  /** Starts one replica again (after `kill`); resolves once it is ready. */
  async startReplica(app: LocalApp, replica: number): Promise<void> {
    await this.must('start', app, String(replica));
  }

  /** Ends one replica with a signal (default SIGKILL: a crash) and waits until it is gone. */
  async kill(app: LocalApp, replica: number, signal: 'KILL' | 'TERM' | 'INT' = 'KILL'): Promise<void> {
    await this.must('kill', app, String(replica), signal);
  }

  /**
   * SIGTERM (one replica, one app's, or all) and wait; the script SIGKILLs a replica that outlives
   * the grace and then exits 2. The result carries the script's lines and its exit code.
   */
  async stop(app?: LocalApp, replica?: number): Promise<RunResult> {
    return this.run('stop', ...(app ? [app] : []), ...(app && replica !== undefined ? [String(replica)] : []));
  }

  /** The exit status the script recorded for the replica's last process, or null if none ended yet. */
  exitStatus(app: LocalApp, replica: number): number | null {
    try {
      return Number(readFileSync(join(this.runDir, 'exits', `${app}-${replica}.exit`), 'utf8').trim());
    } catch {
      return null;
    }
  }

  /** Everything the replica's processes wrote (stdout and stderr, every restart appended). */
  output(app: LocalApp, replica: number): string {
    try {
      return readFileSync(join(this.runDir, 'logs', `${app}-${replica}.log`), 'utf8');
    } catch {
      return '';
    }
  }

  /** `status`: one line per replica; exit 0 only when every replica is ready. */
  status(): Promise<RunResult> {
    return this.run('status');
  }

  /** Stops everything still running and removes the run dir (keeps it when `keep` is true, for a failure's logs). */
  async dispose(keep = false): Promise<RunResult> {
    const result = await this.stop();
    if (!keep) rmSync(this.runDir, { recursive: true, force: true });
    return result;
  }

  run(...args: string[]): Promise<RunResult> {
    mkdirSync(this.runDir, { recursive: true });
    return new Promise((resolve) => {
      execFile(
        'bash',
        [SCRIPT, ...args],
        { cwd: WORKSPACE_ROOT, env: this.env, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ code, stdout: String(stdout), stderr: String(stderr) });
        },
      );
    });
  }

  /** Runs a command that must succeed; its output is in the error otherwise. */
  async must(...args: string[]): Promise<string> {
    const result = await this.run(...args);
    if (result.code !== 0) throw new Error(`onceport-local.sh ${args.join(' ')} exited ${result.code}:\n${result.stdout}${result.stderr}`);
    return result.stdout;
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A base port whose whole scheme (every app, every replica) is free right now. */
async function freeBasePort(replicas: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    // Below Linux's ephemeral range (32768 and up by default): a port found free there can be taken
    // by any process's outgoing connection before the service listens on it (seen in CI: EADDRINUSE).
    const base = 20_000 + 200 * Math.floor(Math.random() * 60);
    const ports = LOCAL_APPS.flatMap((_, i) => Array.from({ length: replicas }, (__, r) => base + i + 1 + 100 * r));
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return base;
  }
  throw new Error('no free port range for the local topology');
}
