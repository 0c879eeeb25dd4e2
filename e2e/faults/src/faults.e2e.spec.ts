import { FAULT_POINTS } from '@onceport/fault-points';
import { PostgresCluster } from '@onceport/fault-kit';
import { type ClusterOptions, FaultCluster, type StoredEventRow, type Verdict, databaseOn, printTable, sleep } from './fault-cluster';

/**
 * Jepsen-style: run operations against the real processes, inject a fault at the worst moment,
 * heal, drain, then check what must hold: no duplicate effect, nothing lost, nothing stuck, the
 * hash chain intact. Each scenario gets a fresh cluster. The target does NOT honour idempotency
 * keys here, so every send is an effect and a second send shows up as a duplicate.
 * `npm run test:faults` runs this suite.
 */
const verdicts: Verdict[] = [];
let cluster: FaultCluster | null = null;
/** One private PostgreSQL for the suite (a database per scenario); scenario 6 crashes its own. */
let postgres: PostgresCluster;
let databases = 0;

beforeAll(async () => {
  postgres = await PostgresCluster.create();
}, 120_000);
afterEach(async () => {
  await cluster?.stop();
  cluster = null;
});
afterAll(async () => {
  printTable(verdicts);
  await postgres?.destroy();
});

async function startCluster(options: Omit<ClusterOptions, 'database'> = {}): Promise<FaultCluster> {
  return FaultCluster.start({ ...options, database: await databaseOn(postgres, `faults_${++databases}`) });
}

async function judge(name: string): Promise<Verdict> {
  if (!cluster) throw new Error('no cluster');
  await cluster.drain();
  const verdict = await cluster.verdict(name);
  verdicts.push(verdict);
  expect(verdict).toMatchObject({ duplicates: 0, lost: 0, stuck: 0, chainOk: true });
  return verdict;
}
const deploy = (project: string) => ({ project, version: '1.0.0' });
const ofType = (events: StoredEventRow[], type: string) => events.filter((e) => e.type === type);
/** The events of the execution of one tool (the scenarios run one execution per tool). */
const ofTool = (events: StoredEventRow[], tool: string) => {
  const stream = events.find((e) => e.type === 'ExecutionAccepted' && e.data['tool'] === tool)?.streamId;
  return events.filter((e) => e.streamId === stream);
};
const SETTLING = ['OutcomeObserved', 'OutcomeSettled'];
/** Unknown, probed "applied", settled completed, sent once: the shape of a probe that found the effect. */
function expectSettledByProbe(events: StoredEventRow[]): void {
  expect(ofType(events, 'OutcomeUnknown')).toHaveLength(1);
  expect(ofType(events, 'ProbeAttempted').map((e) => e.data['verdict'])).toContain('applied');
  expect(ofType(events, 'OutcomeSettled').map((e) => e.data['settlement'])).toEqual(['completed']);
  expect(ofType(events, 'OutcomeObserved')).toHaveLength(0);
  expect(ofType(events, 'DispatchStarted')).toHaveLength(1);
}

describe('fault suite: crash at the worst moment, heal, check', () => {
  it('1. intake dies after ExecutionAccepted is stored, before it answers: the retry gets the same execution; 1 effect', async () => {
    cluster = await startCluster({ faults: { intake: FAULT_POINTS.intakeAfterAccept } });
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
    expect(await cluster.countPerExecution('DispatchStarted')).toEqual([1]);
  });

  it('2. the dispatcher dies after DispatchStarted, before sending: idempotent → probed not applied, dispatched once more; irreversible → needs_review; never 2 effects', async () => {
    cluster = await startCluster({ faults: { dispatcher: FAULT_POINTS.dispatcherAfterDispatchStarted } });
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
    const events = await cluster.events();
    const deployment = ofTool(events, 'fast_deployment');
    expect(ofType(deployment, 'ProbeAttempted').map((e) => e.data['verdict'])).toEqual(['not_applied']);
    // idempotent: the attempt that died unsent, then exactly one re-dispatch.
    expect(ofType(deployment, 'DispatchStarted')).toHaveLength(2);
    const alarm = ofTool(events, 'fire_alarm');
    // irreversible: never re-sent, never probed (no probe is declared), straight to a human.
    expect(ofType(alarm, 'DispatchStarted')).toHaveLength(1);
    expect(ofType(alarm, 'OutcomeSettled').map((e) => e.data['settlement'])).toEqual(['needs_review']);
  });

  it('3. the dispatcher dies after the request was sent, before the answer is stored: the probe finds the effect; completed without re-sending', async () => {
    cluster = await startCluster({ faults: { dispatcher: FAULT_POINTS.dispatcherAfterSend } });
    await cluster.call('fast_deployment', deploy('s3'), 's3');
    await cluster.waitForExit('dispatcher');
    await cluster.restart('dispatcher');
    const verdict = await judge('3 dispatcher killed after send');
    expect(verdict.states).toEqual({ completed_result_not_delivered: 1 });
    expect(verdict.effects).toBe(1);
    expectSettledByProbe(await cluster.events());
  });

  it('3b. the dispatcher is SIGSTOPped after send, its lease runs out, the reconciler settles; SIGCONT: the late outcome is superseded', async () => {
    cluster = await startCluster({ faults: { dispatcher: { point: FAULT_POINTS.dispatcherAfterSend, action: 'stop' } } });
    const c = cluster;
    await c.call('fast_deployment', deploy('s3b'), 's3b');
    await c.waitForStopped('dispatcher');
    // The dispatcher is alive but frozen: only its lease running out lets the reconciler in.
    await c.waitForEvents('the reconciler to settle', (events) => ofType(events, 'OutcomeSettled').length > 0);
    const dispatcher = c.app('dispatcher');
    c.signal('dispatcher', 'SIGCONT');
    await waitFor(
      () => /dispatch outcome not recorded: the execution moved on/.test(dispatcher?.output() ?? ''),
      'the late dispatcher to stand down',
    );
    const verdict = await judge('3b dispatcher SIGSTOPped after send');
    expect(verdict.states).toEqual({ completed_result_not_delivered: 1 });
    expect(verdict.effects).toBe(1);
    const events = await c.events();
    expectSettledByProbe(events);
    expect(events.filter((e) => SETTLING.includes(e.type))).toHaveLength(1);
  });

  it('4. a consumer dies after its events are stored, before the JetStream ack: the redelivery adds no event', async () => {
    cluster = await startCluster({ faults: { authorization: FAULT_POINTS.consumerBeforeAck('authorization') } });
    await cluster.call('fast_deployment', deploy('s4'), 's4');
    await cluster.waitForExit('authorization');
    const before = (await cluster.events()).filter((e) => e.type === 'ExecutionAuthorized').length;
    expect(before).toBe(1);
    await cluster.restart('authorization');
    await waitForRedelivery(cluster, 'authorization');
    const verdict = await judge('4 consumer killed before ack');
    const events = await cluster.events();
    expect(ofType(events, 'ExecutionAuthorized')).toHaveLength(1);
    expect(ofType(events, 'DispatchStarted')).toHaveLength(1);
    expect(verdict.effects).toBe(1);
  });

  it('4b. the dispatcher dies after it dispatched and stored the outcome, before the ack: the redelivered trigger sends nothing again', async () => {
    cluster = await startCluster({
      faults: { dispatcher: FAULT_POINTS.consumerBeforeAck('dispatcher') },
      // The dispatcher declares a long ack wait of its own; the ceiling brings the redelivery into the test.
      appEnv: { dispatcher: { ONCEPORT_ACK_WAIT_MAX_MS: '2000' } },
    });
    await cluster.call('fast_deployment', deploy('s4b'), 's4b');
    await cluster.waitForExit('dispatcher');
    // Intake records ResultDelivered once its answer is written, which may be after this read: the
    // comparison leaves it out (the dispatcher never writes it).
    const dispatcherSide = (events: readonly StoredEventRow[]): string[] =>
      events.map((e) => e.type).filter((type) => type !== 'ResultDelivered');
    const before = await cluster.events();
    expect(ofType(before, 'OutcomeObserved')).toHaveLength(1);
    await cluster.restart('dispatcher');
    await waitForRedelivery(cluster, 'dispatcher');
    const verdict = await judge('4b dispatcher killed before ack');
    const after = await cluster.events();
    expect(dispatcherSide(after)).toEqual(dispatcherSide(before));
    expect(ofType(after, 'ResultDelivered').length).toBeLessThanOrEqual(1);
    expect(ofType(after, 'DispatchStarted')).toHaveLength(1);
    expect(verdict.effects).toBe(1);
  });

  it('5. nats-server killed and restarted mid-run, then restarted with its store wiped: every execution settles, nothing lost', async () => {
    cluster = await startCluster();
    const c = cluster;
    const batch = (from: number) =>
      Promise.all(Array.from({ length: 10 }, (_, i) => c.call('fast_deployment', deploy(`s5-${from + i}`), `s5-${from + i}`)));
    const running = batch(0);
    await sleep(150);
    await c.nats.kill('SIGKILL');
    await sleep(500);
    await c.nats.restart();
    await running;
    await batch(10);
    await c.nats.restartWiped();
    await batch(20);
    const verdict = await judge('5 nats killed, then wiped');
    expect(verdict.executions).toBe(30);
    expect(verdict.effects).toBe(30);
  });

  it('6. PostgreSQL restarted in immediate mode mid-run: no acknowledged execution lost, unknown calls retried attach to one execution, no duplicate effect', async () => {
    const crashing = await PostgresCluster.create();
    try {
      cluster = await FaultCluster.start({ database: await databaseOn(crashing, 'onceport') });
      const c = cluster;
      const intents = Array.from({ length: 8 }, (_, i) => `s6-${i}`);
      // The target applies each effect at once and holds its answer 2 s (past the 1 s timeout).
      c.target.setBehavior({ route: 'deployments', delay_ms: 2000, times: intents.length });
      const running = Promise.all(intents.map((intent) => c.call('fast_deployment', deploy(intent), intent)));
      // Crash mid-run, not after a guessed pause: once an effect is applied and its answer is still held.
      await waitFor(() => c.target.effects({ route: 'deployments' }).length > 0, 'a first effect at the target', 10);
      const crashedAt = Date.now();
      await crashing.stop('immediate');
      await sleep(1000);
      await crashing.start();
      const first = await running;
      // A client retries what it does not know; the retry must attach to the same intent's execution.
      const retried = await Promise.all(
        first.filter((op) => op.outcome !== 'ok').map((op) => c.call('fast_deployment', deploy(op.intent), op.intent)),
      );
      expect(retried.every((op) => op.executionId !== null)).toBe(true);
      const verdict = await judge('6 postgres immediate restart');
      // The outage hit work in flight: an execution dispatched before the crash was settled after it.
      const settledAfterCrash = [...(await c.executions()).values()].filter(
        (execution) => execution.acceptedAt < crashedAt && (execution.settledAt ?? 0) > crashedAt,
      );
      expect(settledAfterCrash.length).toBeGreaterThanOrEqual(1);
      const executionsByIntent = new Map<string, Set<string>>();
      for (const op of c.history)
        if (op.executionId) executionsByIntent.set(op.intent, new Set([...(executionsByIntent.get(op.intent) ?? []), op.executionId]));
      expect([...executionsByIntent.values()].every((ids) => ids.size === 1)).toBe(true);
      expect(verdict.executions).toBe(intents.length);
      expect(verdict.effects).toBe(intents.length);
      expect(new Set(c.target.effects().map((e) => e.params['project']))).toEqual(new Set(intents));
    } finally {
      await cluster?.stop();
      cluster = null;
      await crashing.destroy();
    }
  });

  it('7. the target answers after the dispatcher gave up waiting (the effect happened): settled completed by the probe; 1 effect', async () => {
    cluster = await startCluster();
    cluster.target.setBehavior({ route: 'deployments', delay_ms: 2500, times: 1 });
    const answer = await cluster.call('fast_deployment', deploy('s7'), 's7');
    const verdict = await judge('7 answer after timeout');
    // Intake answers once the outcome is unknown; if the probe settled it before intake looked, that
    // answer already carried the result (and was recorded as delivered).
    expect(verdict.states).toEqual(answer.state?.startsWith('completed') ? { completed: 1 } : { completed_result_not_delivered: 1 });
    expect(verdict.effects).toBe(1);
    expectSettledByProbe(await cluster.events());
  });

  it('7b. the dispatcher→target connection is reset part-way through the request (fault-kit proxy): unknown, probed not applied, sent once more; 1 effect', async () => {
    cluster = await startCluster({ proxyTarget: true });
    const c = cluster;
    const proxy = c.proxy as NonNullable<typeof c.proxy>;
    proxy.setFault({ kind: 'reset_after_bytes', bytes: 40 });
    const call = c.call('fast_deployment', deploy('s7b'), 's7b');
    // Heal as soon as the first connection was cut, so the probe and the re-send go through.
    await waitFor(
      () => proxy.connections().some((conn) => conn.lastError !== null) || proxy.bytes().dropped > 0,
      'the proxy to reset a connection',
      10,
    );
    proxy.clear();
    await call;
    const verdict = await judge('7b proxy reset mid-request');
    expect(verdict.effects).toBe(1);
    const events = await c.events();
    expect(ofType(events, 'OutcomeUnknown').length).toBeGreaterThanOrEqual(1);
    expect(ofType(events, 'ProbeAttempted').map((e) => e.data['verdict'])).toContain('not_applied');
    expect(ofType(events, 'DispatchStarted')).toHaveLength(2);
    expect(events.filter((e) => SETTLING.includes(e.type) && e.data['settlement'] !== 'not_applied')).toHaveLength(1);
  });

  it('8. two reconcilers race on the same stale dispatch (both frozen until the lease is gone, then let go together): exactly one settles', async () => {
    cluster = await startCluster({ faults: { dispatcher: FAULT_POINTS.dispatcherAfterSend } });
    const c = cluster;
    const first = c.app('reconciler');
    const second = await c.gateway.start('reconciler', 1, {});
    try {
      const calling = c.call('fast_deployment', deploy('s8'), 's8');
      await c.waitForExit('dispatcher');
      // Frozen only now, with the lease still running (nothing to settle before it ends): a frozen
      // process may be the relay's leader, and a frozen leader holds publishes until its leader
      // lease (15 s) runs out.
      c.signal(first, 'SIGSTOP');
      c.signal(second, 'SIGSTOP');
      await calling;
      // The lease in DispatchStarted is the fault contract's timeout plus a margin (about 6 s).
      const started = await c.waitForEvents('DispatchStarted', (events) => ofType(events, 'DispatchStarted').length > 0);
      const leaseEnds = Date.parse(String(ofType(started, 'DispatchStarted')[0]?.data['leaseExpiresAt']));
      expect(Number.isNaN(leaseEnds)).toBe(false);
      await sleep(Math.max(0, leaseEnds - Date.now()) + 500);
      c.signal(first, 'SIGCONT');
      c.signal(second, 'SIGCONT');
      await c.restart('dispatcher');
      const verdict = await judge('8 two reconcilers');
      const events = await c.events();
      expectSettledByProbe(events);
      const probes = ofType(events, 'ProbeAttempted').map((e) => e.data['probeNumber']);
      expect(new Set(probes).size).toBe(probes.length);
      expect(events.filter((e) => SETTLING.includes(e.type))).toHaveLength(1);
      expect(verdict.effects).toBe(1);
    } finally {
      await second.kill('SIGKILL');
    }
  });
});

async function waitFor(condition: () => boolean, what: string, everyMs = 100, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * Judging before JetStream redelivered would prove nothing: wait until one of the durable's
 * consumers handed out more messages than there are events of its type (a redelivery), with
 * nothing left unacked.
 */
async function waitForRedelivery(c: FaultCluster, durable: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const consumers = await c.consumerInfo(durable);
    if (consumers.some((info) => info.delivered > info.stored) && consumers.every((info) => info.ackPending === 0)) return;
    if (Date.now() > deadline) throw new Error(`no redelivery to ${durable}: ${JSON.stringify(consumers)}`);
    await sleep(200);
  }
}
