import { existsSync } from 'node:fs';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { type Gateway, startGateway } from './gateway';

const ready = async (url: string): Promise<number> => (await fetch(`${url}/healthz`)).status;

/** Intake alone (in-process delivery needs no NATS), two replicas: what the fault scenarios do to one replica. */
describe('startGateway (processes)', () => {
  let db: TestDatabase;
  let gateway: Gateway | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await gateway?.stop();
    await db?.drop();
  });

  it('starts the replicas asked for, kills and restarts one, and stops all, removing the fixture', async () => {
    gateway = await startGateway({
      targetUrl: 'http://127.0.0.1:9',
      actors: [{ id: 'agent:harness', key: 'harness-key', tools: '*' }],
      database: db,
      env: { ONCEPORT_DELIVERY: 'in_process' },
      replicas: { intake: 2 },
      startOrder: [['intake']],
    });
    const [first, second] = gateway.urls('intake');
    expect(first).toBe(gateway.intakeUrl);
    expect(second).not.toBe(first);
    expect(gateway.urls('dispatcher')).toEqual([]);
    expect([await ready(first ?? ''), await ready(second ?? '')]).toEqual([200, 200]);
    expect(gateway.output('intake', 1)).toContain('"event":"listening"');

    await gateway.kill('intake', 1);
    await expect(fetch(`${second}/healthz`)).rejects.toThrow();
    const restarted = await gateway.restart('intake', { replica: 1 });
    expect(await ready(restarted.url)).toBe(200);
    expect(gateway.process('intake', 1)).toBe(restarted);

    await gateway.stop();
    await expect(fetch(`${first}/healthz`)).rejects.toThrow();
    expect(existsSync(gateway.fixture.dir)).toBe(false);
    gateway = undefined;
  });
});
