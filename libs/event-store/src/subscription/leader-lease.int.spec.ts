import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PostgresEventStore } from '../postgres-event-store';
import { type TestDatabase, createTestDatabase, testEvent } from '../testing';
import { StoreSubscription } from './store-subscription';

const WORKSPACE_ROOT = join(__dirname, '../../../..');
const CHILD = join(__dirname, 'leader-child.fixture.ts');
const LEASE_MS = 1500;

/**
 * A leader that stops running (SIGSTOP here; a partition looks the same to the server) keeps its
 * TCP connection and with it the advisory lock. The lease bounds that: the server ends the idle
 * session, another replica takes over, and the old leader, thawed, finds itself a follower.
 */
describe('exclusive StoreSubscription: a frozen leader loses the lead (real PostgreSQL, real process)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let child: ChildProcess | null = null;
  let follower: StoreSubscription | null = null;
  const childLines: string[] = [];
  const followerRead: string[] = [];

  beforeEach(async () => {
    db = await createTestDatabase();
    store = new PostgresEventStore(db.pool);
  });
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      await new Promise((resolve) => child?.once('exit', resolve));
    }
    await follower?.stop();
    await db.drop();
  });

  it('another replica leads once the frozen one is past its lease; thawed, the old one follows', async () => {
    child = spawn(process.execPath, ['-r', '@swc-node/register', CHILD], {
      cwd: WORKSPACE_ROOT,
      env: { ...process.env, DATABASE_URL: db.url, SUBSCRIPTION_ID: 'frozen-leader', LEADER_LEASE_MS: String(LEASE_MS) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      childLines.push(...lines);
    });

    await store.append('before-freeze', [testEvent()], { expectedVersion: 0 });
    await waitFor(() => childLines.includes('read before-freeze'));
    follower = new StoreSubscription(
      db.pool,
      { subscriptionId: 'frozen-leader', mode: 'at_least_once', exclusive: true, pollIntervalMs: 50, leaderLeaseMs: LEASE_MS },
      async (events) => {
        followerRead.push(...events.map((event) => event.streamId));
      },
    );
    follower.start();

    child.kill('SIGSTOP');
    await store.append('while-frozen', [testEvent()], { expectedVersion: 0 });
    // Without the lease the frozen process would hold the lock for as long as it stays frozen.
    await waitFor(() => followerRead.includes('while-frozen'));

    child.kill('SIGCONT');
    await waitFor(() => childLines.some((line) => line.startsWith('error ')));
    // The thawed process is alive and trying again: it leads as soon as the current leader stops.
    await follower.stop();
    follower = null;
    await store.append('after-handover', [testEvent()], { expectedVersion: 0 });
    await waitFor(() => childLines.includes('read after-handover'));

    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses a lease that is not a usable number of milliseconds, naming the option', () => {
    for (const leaderLeaseMs of [Number.NaN, 0, -1, 10]) {
      expect(
        () =>
          new StoreSubscription(
            db.pool,
            { subscriptionId: 'bad-lease', mode: 'at_least_once', exclusive: true, leaderLeaseMs },
            async () => undefined,
          ),
      ).toThrow(/bad-lease: leaderLeaseMs must be a number of milliseconds ≥ 300/);
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}
