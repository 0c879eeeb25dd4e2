import { type TestDatabase, createTestDatabase, waitFor } from '../testing';
import { ChannelListener } from './channel-listener';

describe('ChannelListener heartbeat (real PostgreSQL)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('finds a connection that stopped answering without an error, reports it lost, and listens again on a new one', async () => {
    // The first connection answers LISTEN, then nothing more: as one a firewall dropped silently would.
    let connections = 0;
    const pool = {
      connect: async () => {
        const client = await db.pool.connect();
        const silent = ++connections === 1;
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        Object.assign(client, {
          query: (...args: unknown[]) =>
            silent && !String(args[0]).startsWith('LISTEN ') ? Promise.reject(new Error('no answer')) : query(...args),
        });
        return client;
      },
    } as unknown as typeof db.pool;
    let lost = 0;
    const listener = new ChannelListener(
      pool,
      'heartbeat_test',
      () => undefined,
      () => lost++,
      20,
    );

    await listener.listen();
    await waitFor(() => lost > 0, 20_000, 'the silent connection reported lost');
    expect(lost).toBe(1);
    expect(listener.listening).toBe(false);

    await listener.listen();
    expect(listener.listening).toBe(true);
    expect(connections).toBe(2);
    listener.close();
  });
});
