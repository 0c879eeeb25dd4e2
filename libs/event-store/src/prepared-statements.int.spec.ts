import type { PoolClient } from 'pg';
import { MAX_PREPARED_TEXTS, preparedNameOf } from './prepared-statements';
import { createTestDatabase, type TestDatabase } from './testing';

describe('PreparingClient (the pool client of every service)', () => {
  let db: TestDatabase;
  let client: PoolClient;

  beforeAll(async () => {
    db = await createTestDatabase();
    client = await db.pool.connect();
  });

  afterAll(async () => {
    client.release();
    await db.drop();
  });

  const preparedOnConnection = async (): Promise<Array<{ name: string; statement: string }>> =>
    (await client.query<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements ORDER BY name')).rows;

  it('prepares a parameterised text once on the connection and reuses it', async () => {
    const text = 'SELECT $1::int + 1 AS next';
    const first = await client.query<{ next: number }>(text, [1]);
    const second = await client.query<{ next: number }>(text, [41]);

    expect([first.rows[0]?.next, second.rows[0]?.next]).toEqual([2, 42]);
    expect(await preparedOnConnection()).toEqual([{ name: preparedNameOf(text), statement: text }]);
  });

  it('leaves texts without values to the simple protocol, several statements included', async () => {
    const results = (await client.query('SELECT 1 AS one; SELECT 2 AS two')) as unknown as Array<{ rows: unknown[] }>;

    expect(results.map((result) => result.rows)).toEqual([[{ one: 1 }], [{ two: 2 }]]);
    expect((await preparedOnConnection()).map((row) => row.statement)).not.toContain('SELECT 1 AS one; SELECT 2 AS two');
  });

  it('keeps a statement usable after one of its executions failed', async () => {
    const text = 'SELECT 10 / $1::int AS quotient';
    await expect(client.query(text, [0])).rejects.toThrow(/division by zero/);

    expect((await client.query<{ quotient: number }>(text, [5])).rows).toEqual([{ quotient: 2 }]);
  });

  it('reports a text that does not parse and prepares nothing for it', async () => {
    const text = 'SELEC $1::int';
    await expect(client.query(text, [1])).rejects.toThrow(/syntax error/);
    await expect(client.query(text, [1])).rejects.toThrow(/syntax error/);

    expect((await preparedOnConnection()).map((row) => row.statement)).not.toContain(text);
  });

  it('runs texts past the bound unnamed, so a text built with values inside cannot fill the server', async () => {
    for (let n = 0; n < MAX_PREPARED_TEXTS; n += 1) preparedNameOf(`SELECT $1::int + ${n}`);
    const text = 'SELECT $1::int * 3 AS tripled';

    expect(preparedNameOf(text)).toBeUndefined();
    expect((await client.query<{ tripled: number }>(text, [3])).rows).toEqual([{ tripled: 9 }]);
    expect((await preparedOnConnection()).map((row) => row.statement)).not.toContain(text);
  });
});
