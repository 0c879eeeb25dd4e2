import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { TestNatsServer } from '@onceport/messaging/testing';
import { type GatewayFixture, writeGatewayFixture } from '@onceport/runtime/testing';
import { type TestTarget, startTestTarget } from '@onceport/test-target';
import { LocalTopology, freeBasePort } from './support/local-topology';
import { presentApps } from './support/workspace';

const KEY = 'key-agent-local-7x2p';
const REPLICAS = 2;
// The demo contracts' credential refs, as the dispatcher replicas get them.
const CREDENTIALS = {
  ONCEPORT_CREDENTIAL_DEPLOY_API: 'sekret-deploy-local',
  ONCEPORT_CREDENTIAL_MAIL_API: 'sekret-mail-local',
  ONCEPORT_CREDENTIAL_PAYMENTS_LIVE: 'sekret-pay-local',
  ONCEPORT_CREDENTIAL_CI_READONLY: 'sekret-ci-local',
};

interface Call {
  readonly project: string;
  executionId?: string;
  state?: string;
  /** Replicas tried before one answered (a dead replica refuses the connection). */
  attempts: number;
}

/**
 * deploy/local runs the pods' topology as processes: two replicas of every service over one
 * JetStream and one PostgreSQL. Batches of calls go through intake; between batches one replica of
 * every service dies by SIGKILL (then comes back, and the other one dies). Every execution must
 * still settle exactly once: one effect at the target, one dispatch, one observed outcome.
 */
describe('deploy/local: two replicas of every service, one of each killed between batches', () => {
  const apps = presentApps(); // the reconciler joins once apps/reconciler exists
  let db: TestDatabase;
  let nats: TestNatsServer;
  let target: TestTarget;
  let fixture: GatewayFixture;
  let runDir: string;
  let local: LocalTopology;
  const calls: Call[] = [];

  beforeAll(async () => {
    [db, nats, target] = await Promise.all([createTestDatabase(), TestNatsServer.start(), startTestTarget()]);
    fixture = writeGatewayFixture(target.url, [{ id: 'agent:local', key: KEY, tools: '*' }], db.url, nats.url);
    runDir = mkdtempSync(join(tmpdir(), 'onceport-local-'));
    const basePort = await freeBasePort(REPLICAS);
    // Everything through ONCEPORT_LOCAL_ENV_FILE, as an operator would write it.
    const settings = {
      ...fixture.env({ ...CREDENTIALS, ONCEPORT_ANSWER_WAIT_MS: '8000' }),
      ONCEPORT_LOCAL_DIR: runDir,
      ONCEPORT_LOCAL_DIST: join(runDir, 'dist'),
      ONCEPORT_LOCAL_APPS: apps.join(' '),
      ONCEPORT_LOCAL_REPLICAS: String(REPLICAS),
      ONCEPORT_LOCAL_BASE_PORT: String(basePort),
    };
    const envFile = join(runDir, 'local.env');
    writeFileSync(envFile, Object.entries(settings).map(([key, value]) => `${key}='${value}'\n`).join(''));
    const { NODE_ENV: _jestSetsTest, ...inherited } = process.env;
    local = new LocalTopology(apps, REPLICAS, basePort, { ...inherited, ONCEPORT_LOCAL_ENV_FILE: envFile });
  }, 60_000);

  afterAll(async () => {
    if (local) await local.run('stop');
    await Promise.all([target?.stop(), nats?.stop()]);
    await db?.drop();
    rmSync(runDir, { recursive: true, force: true });
    rmSync(fixture?.dir ?? '/nonexistent', { recursive: true, force: true });
  }, 60_000);

  /** Like a client behind the intake Service: a refused connection or a 5xx goes to the next replica, same request. */
  async function callThroughIntake(call: Call, firstReplica: number): Promise<void> {
    const idempotencyKey = randomUUID();
    const body = JSON.stringify({ tool: 'create_deployment', arguments: { project: call.project, environment: 'staging', version: '2.0.0' } });
    for (let attempt = 0; attempt < REPLICAS * 4; attempt += 1) {
      call.attempts += 1;
      const url = local.url('intake', (firstReplica + attempt) % REPLICAS);
      const response = await fetch(`${url}/v1/executions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body,
      }).catch(() => null);
      if (!response || response.status >= 500 || response.status === 409) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      const answer = (await response.json()) as { execution_id: string; state: string };
      call.executionId = answer.execution_id;
      call.state = answer.state;
      return;
    }
    throw new Error(`no intake replica answered for ${call.project}`);
  }

  async function callOverMcp(call: Call, replica: number): Promise<void> {
    const client = new Client({ name: 'local-topology-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${local.url('intake', replica)}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
    try {
      call.attempts += 1;
      const result = (await client.callTool({ name: 'create_deployment', arguments: { project: call.project, environment: 'staging', version: '2.0.0' } })) as CallToolResult;
      const answer = result.structuredContent as { execution_id: string; state: string };
      call.executionId = answer.execution_id;
      call.state = answer.state;
    } finally {
      await client.close();
    }
  }

  /** Six REST calls at once, round-robin over both intake replicas, and one MCP call on a live one. */
  async function batch(name: string, liveReplica: number): Promise<Call[]> {
    const batchCalls: Call[] = Array.from({ length: 7 }, (_, i) => ({ project: `${name}-${i}`, attempts: 0 }));
    calls.push(...batchCalls);
    await Promise.all([...batchCalls.slice(0, 6).map((call, i) => callThroughIntake(call, i % REPLICAS)), callOverMcp(batchCalls[6] as Call, liveReplica)]);
    return batchCalls;
  }

  const killReplica = async (replica: number): Promise<void> => {
    await Promise.all(apps.map((app) => local.must('kill', app, String(replica), 'KILL')));
  };

  it('starts two replicas of every service, each ready', async () => {
    await local.must('start');
    const status = await local.run('status');
    expect(status.code).toBe(0);
    const lines = status.stdout.trim().split('\n').slice(1);
    expect(lines).toHaveLength(apps.length * REPLICAS);
    expect(lines.every((line) => /\sready\s/.test(line))).toBe(true);
  }, 120_000);

  it('batch 1 on all replicas; SIGKILL replica 0 of each service; batch 2 on the survivors', async () => {
    const first = await batch('first', 1);
    expect(first.map((c) => c.state)).toEqual(first.map(() => expect.stringMatching(/^completed/)));

    await killReplica(0);
    const status = await local.run('status');
    expect(status.code).toBe(3); // not everything is ready: the killed replicas are down
    expect(status.stdout.split('\n').filter((line) => /\sdown\s/.test(line))).toHaveLength(apps.length);

    const second = await batch('second', 1);
    expect(second.map((c) => c.state)).toEqual(second.map(() => expect.stringMatching(/^completed/)));
    // Calls that started at the dead intake replica got through on the other one.
    expect(second.some((c) => c.attempts > 1)).toBe(true);
  }, 90_000);

  it('replica 0 of each service comes back; SIGKILL replica 1 of each; batch 3 on replica 0', async () => {
    await Promise.all(apps.map((app) => local.must('start', app, '0')));
    await killReplica(1);
    const third = await batch('third', 0);
    expect(third.map((c) => c.state)).toEqual(third.map(() => expect.stringMatching(/^completed/)));
  }, 90_000);

  it('every execution settled exactly once: one effect at the target, one dispatch, one observed outcome', async () => {
    expect(calls).toHaveLength(21);
    for (const call of calls) {
      const effects = target.effects({ route: 'deployments' }).filter((effect) => effect.params['project'] === call.project);
      expect({ project: call.project, effects: effects.length, key: effects[0]?.idempotencyKey }).toEqual({ project: call.project, effects: 1, key: call.executionId });
    }
    const ids = calls.map((call) => call.executionId as string);
    expect(new Set(ids).size).toBe(calls.length);
    const counts = await db.pool.query<{ stream_id: string; event_type: string; n: string }>(
      `SELECT stream_id, event_type, count(*) AS n FROM onceport.events
        WHERE event_type IN ('ExecutionAccepted', 'DispatchStarted', 'OutcomeObserved') GROUP BY 1, 2`,
    );
    const byStream = new Map<string, Record<string, number>>();
    for (const row of counts.rows) byStream.set(row.stream_id, { ...byStream.get(row.stream_id), [row.event_type]: Number(row.n) });
    expect(byStream.size).toBe(calls.length); // no execution beyond the calls made
    for (const [stream, events] of byStream) {
      expect({ stream, ...events }).toEqual({ stream, ExecutionAccepted: 1, DispatchStarted: 1, OutcomeObserved: 1 });
    }
    expect([...byStream.keys()].sort()).toEqual(ids.map((id) => `execution-${id}`).sort());
  });

  it('stops every replica gracefully', async () => {
    const stopped = await local.must('stop');
    expect(stopped.split('\n').filter((line) => line.endsWith('stopped (TERM)'))).toHaveLength(apps.length);
    const status = await local.run('status');
    expect(status.stdout.split('\n').filter((line) => /\sdown\s/.test(line))).toHaveLength(apps.length * REPLICAS);
  }, 60_000);
});
