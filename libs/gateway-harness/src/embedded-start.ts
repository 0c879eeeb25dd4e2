import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GatewayFixture } from './gateway-fixture';
import { bannerValue, freePort, spawnNpmStart } from './npm-start-process';

export interface EmbeddedStart {
  readonly url: string;
  /** The embedded PostgreSQL's `onceport` database, as the start's superuser. */
  readonly databaseUrl: string;
  output(): string;
  /** SIGTERM the start and remove its data dir and PostgreSQL cluster. */
  stop(): Promise<void>;
}

/** `npm start` with the fixture's contracts and actors (no demo), on free ports and a private data dir. */
export async function startEmbedded(fixture: GatewayFixture, env: Record<string, string>): Promise<EmbeddedStart> {
  const parent = mkdtempSync(join(tmpdir(), 'onceport-embedded-'));
  const dataDir = join(parent, 'data');
  const pgPort = await freePort();
  const start = spawnNpmStart({
    ...env,
    PORT: '0',
    ONCEPORT_DATA_DIR: dataDir,
    ONCEPORT_EMBEDDED_PG_PORT: String(pgPort),
    ONCEPORT_CONTRACTS_DIR: fixture.contractsDir,
    ONCEPORT_ACTORS_FILE: fixture.actorsFile,
    ONCEPORT_HMAC_KEYS: fixture.hmacKeys,
    ONCEPORT_ENCRYPTION_KEYS: fixture.encryptionKeys,
  });
  const clusterDir = (): string => bannerValue(start.output(), 'postgres data');
  const stop = async (): Promise<void> => {
    await start.stop();
    for (const dir of [parent, clusterDir()]) if (dir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const url = await start.listening;
    const password = readFileSync(join(dataDir, 'postgres-password'), 'utf8').trim();
    return {
      url,
      databaseUrl: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/onceport`,
      output: () => start.output(),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
