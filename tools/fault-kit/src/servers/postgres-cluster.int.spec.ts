import { statSync, existsSync } from 'node:fs';
import { Client } from 'pg';
import { CleanupStack } from '../cleanup-stack';
import { postgresUser, runsAsRoot } from './postgres-binaries';
import { PostgresCluster } from './postgres-cluster';

const cleanup = new CleanupStack();
afterAll(() => cleanup.run());

async function query<T>(cluster: PostgresCluster, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: cluster.url() });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('PostgresCluster (a private real PostgreSQL cluster)', () => {
  let cluster: PostgresCluster;

  beforeAll(async () => {
    cluster = cleanup.add(await PostgresCluster.create(), (created) => created.destroy());
  });

  it('runs on its own port on 127.0.0.1 with trust auth, from a data dir the postgres user owns', async () => {
    expect(await query(cluster, `select current_setting('port') as port, current_setting('listen_addresses') as listen`)).toEqual([
      { port: String(cluster.port), listen: '127.0.0.1' },
    ]);
    if (runsAsRoot()) expect(statSync(cluster.dataDir).uid).toBe(postgresUser().uid);
  });

  it("stop('immediate') is a crash: clients are cut off, and the next start recovers every committed row", async () => {
    await query(cluster, 'create table ledger (id int primary key)');
    await query(cluster, 'insert into ledger select generate_series(1, 100)');
    const victim = new Client({ connectionString: cluster.url() });
    await victim.connect();
    const cut = new Promise<Error>((resolve) => victim.once('error', resolve));
    await cluster.stop('immediate');
    expect(cluster.running).toBe(false);
    expect(String(await cut)).toMatch(/terminat|ECONNRESET|Connection/i);
    await expect(query(cluster, 'select 1')).rejects.toThrow(/ECONNREFUSED/);
    await cluster.start();
    expect(await query(cluster, 'select count(*)::int as rows from ledger')).toEqual([{ rows: 100 }]);
    expect(cluster.log()).toMatch(/received immediate shutdown request/);
    expect(cluster.log()).toMatch(/database system was interrupted|not properly shut down|redo starts/);
  });

  it("restart('immediate') does both, on the same port", async () => {
    await cluster.restart('immediate');
    expect(await query(cluster, 'select count(*)::int as rows from ledger')).toEqual([{ rows: 100 }]);
  });

  it('destroy() stops it and removes its directory (and may be called again by the cleanup)', async () => {
    await cluster.destroy();
    expect(cluster.running).toBe(false);
    expect(existsSync(cluster.baseDir)).toBe(false);
    await expect(query(cluster, 'select 1')).rejects.toThrow(/ECONNREFUSED/);
  });
});
