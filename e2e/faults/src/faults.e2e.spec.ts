import { rmSync } from 'node:fs';
import { FAULT_POINTS } from '@onceport/fault-points';
import { PostgresCluster } from '@onceport/fault-kit';
import { startAppProcess } from '@onceport/runtime/testing';
import { Pool } from 'pg';
import { FaultCluster, type Verdict, printTable, sleep } from './fault-cluster';

/**
 * Jepsen-style: run operations against the real processes, inject a fault at the worst moment,
 * heal, drain, then check what must hold: no duplicate effect, nothing lost, nothing stuck, the
 * hash chain intact. Each scenario gets a fresh cluster. `npm run test:faults` runs this suite.
 */
const verdicts: Verdict[] = [];
let cluster: FaultCluster | null = null;

afterEach(async () => {
  await cluster?.stop();
  cluster = null;
});
afterAll(() => printTable(verdicts));

async function judge(name: string): Promise<Verdict> {
  if (!cluster) throw new Error('no cluster');
  await cluster.drain();
  const verdict = await cluster.verdict(name);
  verdicts.push(verdict);
  expect(verdict).toMatchObject({ duplicates: 0, lost: 0, stuck: 0, chainOk: true });
  return verdict;
}
const deploy = (project: string) => ({ project, version: '1.0.0' });

describe('fault suite: crash at the worst moment, heal, check', () => {
  it('1. intake dies after ExecutionAccepted is stored, before it answers: the retry gets the same execution; 1 effect', async () => {
    cluster = await FaultCluster.start({ intake: FAULT_POINTS.intakeAfterAccept });
    const first = await cluster.call('fast_deployment', deploy('s1'), 's1');
    expect(first.outcome).toBe('unknown');
    await cluster.waitForExit('intake');
    await cluster.restart('intake');
    const retry = await cluster.call('fast_deployment', deploy('s1'), 's1');
    const executions = await cluster.executions();
    expect(executions.size).toBe(1);
    expect(retry.executionId).toBe([...executions.keys()][0]);
    const verdict = await judge('1 intake killed after accept');
    expect(verdict.effects).toBe(1);
  });

  it('2. the dispatcher dies after DispatchStarted, before sending: idempotent → probed, dispatched once; irreversible → needs_review; never 2 effects', async () => {
    cluster = await FaultCluster.start({ dispatcher: FAULT_POINTS.dispatcherAfterDispatchStarted });
    // The irreversible one first: it is never dispatched again, so the second faulty dispatcher
    // can only die on the deployment.
    await cluster.call('fire_alarm', { alarm_id: 'a2' }, 'a2');
    await cluster.waitForExit('dispatcher');
    await cluster.startApp('dispatcher', FAULT_POINTS.dispatcherAfterDispatchStarted);
    await cluster.call('fast_deployment', deploy('s2'), 's2');
    await cluster.waitForExit('dispatcher');
    await cluster.restart('dispatcher');
    const verdict = await judge('2 dispatcher killed after DispatchStarted');
    expect(verdict.states).toEqual({ completed_result_not_delivered: 1, needs_review: 1 });
    expect(cluster.target.effectCount({ route: 'deployments' })).toBe(1);
    expect(cluster.target.effectCount({ route: 'payments' })).toBe(0);
  });

  it('3. the dispatcher dies after the request was sent, before the answer is stored: the probe finds the effect; completed without re-sending', async () => {
    cluster = await FaultCluster.start({ dispatcher: FAULT_POINTS.dispatcherAfterSend });
    await cluster.call('fast_deployment', deploy('s3'), 's3');
    await cluster.waitForExit('dispatcher');
    await cluster.restart('dispatcher');
    const verdict = await judge('3 dispatcher killed after send');
    expect(verdict.states).toEqual({ completed_result_not_delivered: 1 });
    expect(verdict.effects).toBe(1);
  });

  it('4. a consumer dies after its events are stored, before the JetStream ack: the redelivery adds no event', async () => {
    cluster = await FaultCluster.start({ authorization: FAULT_POINTS.consumerBeforeAck('authorization') });
    await cluster.call('fast_deployment', deploy('s4'), 's4');
    await cluster.waitForExit('authorization');
    await cluster.restart('authorization');
    const verdict = await judge('4 consumer killed before ack');
    const authorized = await cluster.db.pool.query("SELECT count(*)::int AS n FROM onceport.events WHERE event_type = 'ExecutionAuthorized'");
    expect(authorized.rows[0].n).toBe(1);
    expect(verdict.effects).toBe(1);
  });

  it('5. nats-server killed and restarted mid-run, then restarted with its store wiped: every execution settles, nothing lost', async () => {
    cluster = await FaultCluster.start();
    const c = cluster;
    const batch = (from: number) => Promise.all(Array.from({ length: 10 }, (_, i) => c.call('fast_deployment', deploy(`s5-${from + i}`), `s5-${from + i}`)));
    const running = batch(0);
    await sleep(150);
    await c.nats.kill('SIGKILL');
    await sleep(500);
    await c.nats.restart();
    await running;
    await batch(10);
    await c.nats.kill('SIGKILL');
    rmSync(c.nats.storeDir, { recursive: true, force: true });
    await c.nats.restart();
    await batch(20);
    const verdict = await judge('5 nats killed, then wiped');
    expect(verdict.executions).toBe(30);
    expect(verdict.effects).toBe(30);
  });

  it('6. PostgreSQL restarted in immediate mode mid-run: no acknowledged execution lost, no duplicate effect', async () => {
    const postgres = await PostgresCluster.create();
    try {
      const admin = new Pool({ connectionString: postgres.url(), max: 1 });
      await admin.query('CREATE DATABASE onceport');
      await admin.end();
      const pool = new Pool({ connectionString: postgres.url('onceport'), max: 5 });
      pool.on('error', () => undefined); // the restart breaks idle connections; queries reconnect
      cluster = await FaultCluster.start({}, { url: postgres.url('onceport'), pool, drop: () => pool.end() });
      const c = cluster;
      const batch = (from: number) => Promise.all(Array.from({ length: 8 }, (_, i) => c.call('fast_deployment', deploy(`s6-${from + i}`), `s6-${from + i}`)));
      const running = batch(0);
      await sleep(200);
      await postgres.stop('immediate');
      await sleep(1000);
      await postgres.start();
      await running;
      await batch(8);
      const verdict = await judge('6 postgres immediate restart');
      // Every answer that named an execution (acknowledged) is in the store: judge() checked lost = 0.
      const acknowledged = c.history.filter((op) => op.executionId !== null).length;
      expect(acknowledged).toBeGreaterThanOrEqual(8);
      expect(verdict.effects).toBeLessThanOrEqual(verdict.executions);
    } finally {
      await cluster?.stop();
      cluster = null;
      await postgres.destroy();
    }
  });

  it('7. the target answers after the dispatcher gave up waiting (the effect happened): settled completed by the probe; 1 effect', async () => {
    cluster = await FaultCluster.start();
    cluster.target.setBehavior({ route: 'deployments', delay_ms: 2500, times: 1 });
    await cluster.call('fast_deployment', deploy('s7'), 's7');
    const verdict = await judge('7 answer after timeout');
    expect(verdict.states).toEqual({ completed_result_not_delivered: 1 });
    expect(verdict.effects).toBe(1);
  });

  it('8. two reconcilers race on the same stale dispatch: exactly one settles', async () => {
    cluster = await FaultCluster.start({ dispatcher: FAULT_POINTS.dispatcherAfterDispatchStarted });
    const second = await startAppProcess('reconciler', cluster.env());
    try {
      await cluster.call('fast_deployment', deploy('s8'), 's8');
      await cluster.waitForExit('dispatcher');
      await cluster.restart('dispatcher');
      const verdict = await judge('8 two reconcilers');
      const counts = await cluster.db.pool.query(
        "SELECT event_type, count(*)::int AS n, count(DISTINCT data->>'probeNumber')::int AS distinct_probes FROM onceport.events WHERE event_type IN ('OutcomeUnknown', 'OutcomeSettled', 'ProbeAttempted') GROUP BY event_type",
      );
      for (const row of counts.rows) {
        if (row.event_type === 'ProbeAttempted') expect(row.n).toBe(row.distinct_probes);
        else expect(row.n).toBe(1);
      }
      expect(verdict.effects).toBe(1);
    } finally {
      await second.kill('SIGKILL');
    }
  });
});
