import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { TestNatsServer } from '@onceport/messaging/testing';
import { type GatewayFixture, LOCAL_APPS, LocalTopology, writeGatewayFixture } from '@onceport/gateway-harness';
import { type TestTarget, startTestTarget } from '@onceport/test-target';
import { CONSOLE_APP, presentApps } from './support/workspace';

const KEY = 'key-agent-local-7x2p';
const REPLICAS = 2;
const CALLS = 20;
// Sent before the kill; the rest after it, round-robin, so some meet the dead intake replica.
const BEFORE_KILL = 16;
// The target holds each answer this long (it applies the effect at once), so dispatches are in
// flight when the replicas die; two per dispatcher replica at a time keeps the rest queued earlier
// in the pipeline.
const TARGET_DELAY_MS = 2500;
// The demo contracts' credential refs, as the dispatcher replicas get them.
const CREDENTIALS = {
  ONCEPORT_CREDENTIAL_DEPLOY_API: 'sekret-deploy-local',
  ONCEPORT_CREDENTIAL_MAIL_API: 'sekret-mail-local',
  ONCEPORT_CREDENTIAL_PAYMENTS_LIVE: 'sekret-pay-local',
  ONCEPORT_CREDENTIAL_CI_READONLY: 'sekret-ci-local',
};
// Effect classes (DESIGN.md §3) under which a second DispatchStarted is allowed; create_deployment is `idempotent`.
const REDISPATCHABLE = new Set(['none', 'idempotent', 'conditional']);
const EFFECT_CLASS: Record<string, string> = { create_deployment: 'idempotent' };

interface Call {
  readonly project: string;
  executionId?: string;
  /** The intake replica that answered. */
  answeredBy?: number;
  attempts: number;
}

interface StreamEvents {
  readonly counts: Record<string, number>;
  readonly settlement?: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * deploy/local runs the pods' topology as processes: two replicas of every service over one
 * JetStream and one PostgreSQL. While a batch of calls is in flight — some dispatches waiting on the
 * target, others still in intake, authorization or the dispatcher's queue — one replica of every
 * service dies by SIGKILL. Every execution must still settle exactly once: one effect at the target
 * (which does NOT honour idempotency keys here, so a blind re-send would show as a second effect),
 * one outcome.
 */
describe('deploy/local: two replicas of every service and the console, one of each service SIGKILLed mid-run', () => {
  const services = presentApps();
  const apps = [...services, CONSOLE_APP];
  let db: TestDatabase;
  let nats: TestNatsServer;
  let target: TestTarget;
  let fixture: GatewayFixture;
  let local: LocalTopology;
  const calls: Call[] = Array.from({ length: CALLS }, (_, i) => ({ project: `mid-run-${i}`, attempts: 0 }));

  beforeAll(async () => {
    [db, nats, target] = await Promise.all([createTestDatabase(), TestNatsServer.start(), startTestTarget()]);
    fixture = writeGatewayFixture(target.url, [{ id: 'agent:local', key: KEY, tools: '*' }], db.url, nats.url);
    local = await LocalTopology.prepare({
      apps,
      replicas: REPLICAS,
      readyTimeoutSeconds: 300,
      env: fixture.env({
        ...CREDENTIALS,
        ONCEPORT_ANSWER_WAIT_MS: '1000',
        ONCEPORT_DISPATCH_CONCURRENCY: '2',
        // An abandoned lease and an unacked message come back in seconds, not the production minutes.
        ONCEPORT_DISPATCH_LEASE: '10000',
        ONCEPORT_ACK_WAIT_MAX_MS: '10000',
        ONCEPORT_RECONCILE_SWEEP_MS: '500',
        ONCEPORT_PROBE_BACKOFF_MS: '200',
      }),
    });
  }, 60_000);

  afterAll(async () => {
    if (local) await local.dispose();
    await Promise.all([target?.stop(), nats?.stop()]);
    await db?.drop();
    rmSync(fixture?.dir ?? '/nonexistent', { recursive: true, force: true });
  }, 90_000);

  /**
   * Like a client behind the intake Service: a refused or reset connection or a 5xx goes to the next
   * replica, same request and Idempotency-Key. A 409 is an answer too: the first request (sent to a
   * replica that then died) is in flight, and the body names its execution.
   */
  async function callThroughIntake(call: Call, firstReplica: number): Promise<void> {
    const idempotencyKey = randomUUID();
    const body = JSON.stringify({
      tool: 'create_deployment',
      arguments: { project: call.project, environment: 'staging', version: '2.0.0' },
    });
    for (let attempt = 0; attempt < REPLICAS * 10; attempt += 1) {
      call.attempts += 1;
      const replica = (firstReplica + attempt) % REPLICAS;
      const response = await fetch(`${local.url('intake', replica)}/v1/executions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body,
      }).catch(() => null);
      if (!response || response.status >= 500) {
        await sleep(200);
        continue;
      }
      const answer = (await response.json()) as { execution_id: string };
      call.executionId = answer.execution_id;
      call.answeredBy = replica;
      return;
    }
    throw new Error(`no intake replica answered for ${call.project}`);
  }

  async function eventsByStream(): Promise<Map<string, StreamEvents>> {
    const { rows } = await db.pool.query<{ stream_id: string; event_type: string; n: string; settlement: string | null }>(
      `SELECT stream_id, event_type, count(*) AS n, max(data->>'settlement') AS settlement FROM onceport.events
        WHERE stream_id LIKE 'execution-%' GROUP BY 1, 2`,
    );
    const byStream = new Map<string, StreamEvents>();
    for (const row of rows) {
      const prior = byStream.get(row.stream_id) ?? { counts: {} };
      byStream.set(row.stream_id, {
        counts: { ...prior.counts, [row.event_type]: Number(row.n) },
        settlement: prior.settlement ?? row.settlement ?? undefined,
      });
    }
    return byStream;
  }

  const outcomes = (events: StreamEvents): number => (events.counts['OutcomeObserved'] ?? 0) + (events.counts['OutcomeSettled'] ?? 0);

  async function dispatchersNamed(): Promise<string[]> {
    const { rows } = await db.pool.query<{ id: string }>(
      `SELECT DISTINCT data->>'dispatcherId' AS id FROM onceport.events WHERE event_type = 'DispatchStarted' ORDER BY 1`,
    );
    return rows.map((row) => row.id);
  }

  /** Executions whose latest DispatchStarted names this dispatcher and that have no outcome yet. */
  async function openDispatchesOf(dispatcherId: string): Promise<number> {
    const { rows } = await db.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM onceport.events d WHERE d.event_type = 'DispatchStarted' AND d.data->>'dispatcherId' = $1
         AND NOT EXISTS (SELECT 1 FROM onceport.events o WHERE o.stream_id = d.stream_id AND o.stream_version > d.stream_version)`,
      [dispatcherId],
    );
    return Number(rows[0]?.n ?? 0);
  }

  it('starts two replicas of all four services and the console, each ready', async () => {
    expect(apps).toEqual([...LOCAL_APPS]);
    await local.must('start');
    const status = await local.status();
    expect(status.code).toBe(0);
    const lines = status.stdout.trim().split('\n').slice(1);
    expect(lines).toHaveLength(apps.length * REPLICAS);
    expect(lines.every((line) => /\sready\s/.test(line))).toBe(true);
  }, 400_000);

  it("the console serves its built page and signs an admin in: the key checked by the services' replica 0", async () => {
    for (const url of local.urls(CONSOLE_APP)) {
      const page = await fetch(`${url}/`);
      expect({ url, status: page.status, html: await page.text() }).toMatchObject({
        url,
        status: 200,
        html: expect.stringContaining('app.js'),
      });
    }
    const signIn = (key: string) =>
      fetch(`${local.url(CONSOLE_APP, 0)}/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-onceport-console': '1' },
        body: JSON.stringify({ key }),
      });
    expect((await signIn('adm_not-an-admin-key')).status).toBe(401);
    const signedIn = await signIn(fixture.adminKey);
    expect(signedIn.status).toBe(200);
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const vault = await fetch(`${local.url(CONSOLE_APP, 0)}/api/vault`, { headers: { cookie } });
    expect({ status: vault.status, body: await vault.json() }).toMatchObject({ status: 200, body: { status: 'unlocked' } });
  });

  it('SIGKILLs replica 0 of every service while dispatches are in flight and others are still queued', async () => {
    target.setBehavior({ route: 'deployments', delay_ms: TARGET_DELAY_MS, honour_idempotency: false });
    // Started a little apart, alternating between the intake replicas.
    const firstWave = calls.slice(0, BEFORE_KILL).map(async (call, i) => {
      await sleep(i * 100);
      await callThroughIntake(call, i % REPLICAS);
    });

    // Wait for the moment the kill must hit: both intake replicas have answered a call, both
    // dispatcher replicas have started dispatches, some of which the target still holds (no outcome
    // yet), and some accepted executions are not dispatched yet (in authorization or queued for a
    // dispatcher). Intake answers after its answer wait, so under load a kill on dispatch progress
    // alone can come before replica 0 has answered anything.
    const answeredByEach = (): boolean => [0, 1].every((replica) => calls.some((call) => call.answeredBy === replica));
    let before = { dispatchers: [] as string[], open: 0, heldByReplica0: 0, notYetDispatched: 0 };
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(50)) {
      const byStream = [...(await eventsByStream()).values()];
      before = {
        dispatchers: await dispatchersNamed(),
        open: byStream.filter((e) => e.counts['DispatchStarted'] && outcomes(e) === 0).length,
        heldByReplica0: await openDispatchesOf('dispatcher-0'),
        notYetDispatched: byStream.filter((e) => e.counts['ExecutionAccepted'] && !e.counts['DispatchStarted']).length,
      };
      if (
        answeredByEach() &&
        before.dispatchers.length === REPLICAS &&
        before.open >= REPLICAS &&
        before.heldByReplica0 > 0 &&
        before.notYetDispatched > 0
      )
        break;
    }
    expect(answeredByEach()).toBe(true);
    expect(before.dispatchers).toEqual(['dispatcher-0', 'dispatcher-1']); // the work was spread over both
    expect(before.open).toBeGreaterThanOrEqual(REPLICAS);
    expect(before.heldByReplica0).toBeGreaterThan(0); // the dispatcher about to die has requests at the target
    expect(before.notYetDispatched).toBeGreaterThan(0);

    await Promise.all(services.map((app) => local.kill(app, 0)));
    const status = await local.status();
    expect(status.code).toBe(3); // the killed replicas are down
    expect(status.stdout.split('\n').filter((line) => /\sdown\s/.test(line))).toHaveLength(services.length);
    expect(services.map((app) => local.exitStatus(app, 0))).toEqual(services.map(() => 128 + 9));

    const secondWave = calls.slice(BEFORE_KILL).map((call, i) => callThroughIntake(call, i % REPLICAS));
    await Promise.all([...firstWave, ...secondWave]);
    // Both intake replicas took calls, and calls sent to the dead one went to the survivor.
    expect(new Set(calls.slice(0, BEFORE_KILL).map((call) => call.answeredBy))).toEqual(new Set([0, 1]));
    expect(calls.slice(BEFORE_KILL).filter((call) => call.attempts > 1).length).toBeGreaterThan(0);

    // Every execution reaches an outcome on the survivors (an abandoned lease goes to the reconciler).
    let open = calls.length;
    for (const deadline = Date.now() + 180_000; Date.now() < deadline && open > 0;) {
      const byStream = await eventsByStream();
      open = calls.filter((call) => outcomes(byStream.get(`execution-${call.executionId}`) ?? { counts: {} }) === 0).length;
      if (open > 0) await sleep(500);
    }
    expect(open).toBe(0);
    // The dispatches the dead dispatcher held were taken over by the surviving reconciler.
    const { rows } = await db.pool.query<{ actor: string }>(
      `SELECT DISTINCT metadata->>'actor' AS actor FROM onceport.events WHERE metadata->>'actor' LIKE 'svc:reconciler:%'`,
    );
    expect(rows.map((row) => row.actor)).toEqual(['svc:reconciler:reconciler-1']);
  }, 400_000);

  it('every execution settled exactly once: one effect at the target, one outcome, a re-dispatch only where allowed', async () => {
    const ids = calls.map((call) => call.executionId as string);
    expect(new Set(ids).size).toBe(CALLS);
    for (const call of calls) {
      const effects = target.effects({ route: 'deployments' }).filter((effect) => effect.params['project'] === call.project);
      expect({ project: call.project, effects: effects.length, key: effects[0]?.idempotencyKey }).toEqual({
        project: call.project,
        effects: 1,
        key: call.executionId,
      });
    }
    const byStream = await eventsByStream();
    expect([...byStream.keys()].sort()).toEqual(ids.map((id) => `execution-${id}`).sort()); // no execution beyond the calls
    for (const [stream, events] of byStream) {
      const { ExecutionAccepted, DispatchStarted = 0 } = events.counts;
      expect({ stream, ExecutionAccepted, outcomes: outcomes(events) }).toEqual({ stream, ExecutionAccepted: 1, outcomes: 1 });
      // A second dispatch is only allowed for re-dispatchable effects; the single effect above shows it was not a blind re-send.
      const allowed = REDISPATCHABLE.has(EFFECT_CLASS['create_deployment'] as string) ? 2 : 1;
      expect({ stream, dispatchedOnceOrAllowed: DispatchStarted >= 1 && DispatchStarted <= allowed }).toEqual({
        stream,
        dispatchedOnceOrAllowed: true,
      });
      if (events.counts['OutcomeSettled']) expect({ stream, settlement: events.settlement }).toEqual({ stream, settlement: 'completed' });
    }
  });

  it('brings replica 0 back, then stops every replica gracefully: each exits 0 after SIGTERM', async () => {
    await Promise.all(services.map((app) => local.startReplica(app, 0)));
    const stopped = await local.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.stdout.split('\n').filter((line) => line.endsWith('stopped (TERM) exit 0'))).toHaveLength(apps.length * REPLICAS);
    for (const app of apps)
      for (let r = 0; r < REPLICAS; r += 1) expect({ app, r, exit: local.exitStatus(app, r) }).toEqual({ app, r, exit: 0 });
    const status = await local.status();
    expect(status.stdout.split('\n').filter((line) => /\sdown\s/.test(line))).toHaveLength(apps.length * REPLICAS);
  }, 400_000);
});
