// Contract test of the reconciler (CONVENTIONS.md, "recorded histories as fixtures"): it must handle
// every schema version of every event it consumes, as recorded, and write only events every
// consumer can read. Real PostgreSQL, a real HTTP target and a real OpenSSH server for the probes.
import { createHash, randomBytes } from 'node:crypto';
import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ActorDirectory, parseActorsFile } from '@onceport/config';
import { executionEventRegistry, executionStreamId, parseEvent } from '@onceport/contracts';
import { everyVersionOf, recordedHistories, unrecorded } from '@onceport/contracts/testing';
import { type HttpToolContract, type SshToolContract, type ToolContract, parseToolContracts } from '@onceport/domain';
import { relabelHistory } from '@onceport/domain/testing';
import { EntityManager, type MikroORM } from '@mikro-orm/postgresql';
import { type JsonObject, type StoredEvent, openOrm, runMigrations } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { readModelEntities } from '@onceport/read-models';
import { type ServicePorts, openServicePorts, ServiceKitModule, allMigrations } from '@onceport/service-kit';
import { testArgumentSealer } from '@onceport/service-kit/testing';
import { CredentialResolver, HttpChannel, SshChannel } from '@onceport/target-channels';
import { type TestSshd, installRecordRun, sshContract, startTestSshd } from '@onceport/target-channels/testing';
import { type TestTarget, startTestTarget } from '@onceport/test-target';
import { reconcilerMigrations } from './reconciler-migrations';
import { ADMINS } from './reconciler.tokens';
import { ReviewController } from './resolve-review/review.controller';
import { SettleExecutionHandler } from './settle-execution/settle-execution.handler';
import { Sweeper } from './sweep/sweeper';

interface RecordedEvent {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: JsonObject & {
    readonly executionId: string;
    readonly tool?: string;
    readonly channel?: string;
    readonly effectClass?: string;
  };
  readonly metadata: JsonObject & { readonly eventId: string };
}

/**
 * What it reads: OutcomeUnknown over JetStream (OutcomeUnknownConsumer); every execution event when
 * the settle handler, the sweep or a review resolution loads a stream, and the sweep's read model
 * (execution-matches) projects every execution event.
 */
const TRIGGER = 'OutcomeUnknown';
const CONSUMED = [
  ...everyVersionOf([TRIGGER], (type) => executionEventRegistry.currentVersion(type)),
  ...everyVersionOf(executionEventRegistry.types, (type) => executionEventRegistry.currentVersion(type)),
];
/**
 * Every event type the reconciler's code appends (a re-dispatch is an OutcomeSettled `not_applied`:
 * it folds back to `authorized`), and the settlements the cases below must reach.
 */
const WRITES = ['CorrelationExpired', 'OutcomeSettled', 'OutcomeUnknown', 'ProbeAttempted', 'ReviewResolved'];
const SETTLEMENTS = ['completed', 'needs_review', 'not_applied'];

const histories = Object.entries(recordedHistories).map(([name, events]) => ({ name, events: events as readonly RecordedEvent[] }));
/**
 * Where the reconciler takes over: right after each recorded OutcomeUnknown (what its consumer is
 * handed), and right after each DispatchStarted (a dispatcher that died: the lease ran out long ago).
 */
const takeOvers = histories.flatMap(({ name, events }) =>
  events.flatMap((event, index) =>
    event.type === TRIGGER || event.type === 'DispatchStarted'
      ? [{ name, index, type: event.type, version: event.schemaVersion, events }]
      : [],
  ),
);
/** Whether the effect is at the target when the probe looks. */
const TARGET_STATES = ['effect applied at the target', 'nothing at the target'] as const;

const ADMIN_KEY = `adm_${randomBytes(16).toString('hex')}`;
const ACTORS = `actors: []\nadmins:\n  - id: ops:contract\n    api_keys_sha256: [${createHash('sha256').update(ADMIN_KEY).digest('hex')}]\n`;
const DEPLOY_SECRET = 'tok_deploy_7f3a';

/** An event as written must be the current version and pass the contracts' parser (what every consumer reads with). */
function expectReadable(event: StoredEvent): void {
  expect({ type: event.type, schemaVersion: event.schemaVersion }).toEqual({
    type: event.type,
    schemaVersion: executionEventRegistry.currentVersion(event.type),
  });
  expect(() =>
    parseEvent({
      type: event.type,
      schemaVersion: event.schemaVersion,
      data: event.data,
      metadata: { ...event.metadata, eventId: event.eventId },
    }),
  ).not.toThrow();
}

describe('reconciler contract (real PostgreSQL, HTTP target, OpenSSH)', () => {
  let db: TestDatabase;
  let runtime: ServicePorts;
  let target: TestTarget;
  let sshd: TestSshd;
  let recordRun: string;
  let app: INestApplication;
  let reviewBase: string;
  let orm: MikroORM;
  const http = new HttpChannel();
  const ssh = new SshChannel();
  const contracts = new Map<string, ToolContract>();
  /** Ids of the events a test put in the store; everything else in it was written by the reconciler. */
  const seeded = new Set<string>();
  const written = new Set<string>();
  const settlements = new Set<string>();

  const handler = () =>
    new SettleExecutionHandler({
      commands: runtime.commands,
      results: runtime.results,
      tracer: runtime.tracer,
      contracts,
      channel: http,
      ssh,
      sealer: testArgumentSealer(),
      credentials: new CredentialResolver(
        { ONCEPORT_CREDENTIAL_DEPLOY_API: DEPLOY_SECRET, ONCEPORT_CREDENTIAL_TEST_SSH_KEY: sshd.clientPrivateKey },
        null,
      ),
      reconcilerId: 'contract',
      limits: { maxProbes: 2, probeBackoffMs: 1, maxProbeBackoffMs: 1, maxAttempts: 3 },
    });

  beforeAll(async () => {
    db = await createTestDatabase();
    target = await startTestTarget();
    sshd = await startTestSshd();
    recordRun = installRecordRun(sshd.dir);
    runtime = await openServicePorts({
      serviceName: 'reconciler-contract-test',
      databaseUrl: db.url,
      natsUrl: 'nats://127.0.0.1:1',
      delivery: 'in_process',
      poolSize: 6,
      log: () => undefined,
    });
    await runMigrations(runtime.config.databaseUrl, [...allMigrations, ...reconcilerMigrations]);
    orm = await openOrm({ databaseUrl: db.url, entities: readModelEntities });
    for (const { events } of histories) {
      const { tool, channel, effectClass } = events[0]?.data ?? {};
      if (!tool || contracts.has(tool)) continue;
      contracts.set(
        tool,
        channel === 'ssh'
          ? sshContract(sshd, { name: tool, argv: [recordRun, tool, '0', '0', 'migrated'], credentialRef: 'test-ssh-key' })
          : httpContract(tool, effectClass ?? 'idempotent', target.url),
      );
    }
    @Module({
      imports: [ServiceKitModule.forPorts(runtime)],
      controllers: [ReviewController],
      providers: [
        { provide: ADMINS, useValue: new ActorDirectory(parseActorsFile(ACTORS, 'actors.yaml')) },
        { provide: EntityManager, useValue: orm.em },
      ],
    })
    class ReviewService {}
    app = await NestFactory.create(ReviewService, { logger: false, bodyParser: false });
    await app.listen(0, '127.0.0.1');
    reviewBase = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/v1/admin`;
  });
  afterAll(async () => {
    await app?.close();
    await http.close();
    await orm?.close();
    await runtime?.close();
    await sshd?.stop();
    await target?.stop();
    await db?.drop();
  });

  async function seed(events: readonly RecordedEvent[], executionId: string): Promise<number> {
    await runtime.store.append(
      executionStreamId(executionId),
      events.map((e) => ({
        eventId: e.metadata.eventId,
        type: e.type,
        schemaVersion: e.schemaVersion,
        data: e.data,
        metadata: e.metadata,
      })),
      { expectedVersion: 0 },
    );
    for (const event of events) seeded.add(event.metadata.eventId);
    return events.length;
  }
  async function appendedAfter(executionId: string, count: number): Promise<StoredEvent[]> {
    const appended = (await runtime.store.readStream(executionStreamId(executionId))).slice(count);
    for (const event of appended) {
      expectReadable(event);
      written.add(event.type);
    }
    return appended;
  }

  it('has a recorded example of every schema version of every event it consumes', () => {
    const triggers = takeOvers.filter((c) => c.type === TRIGGER);
    const missing = everyVersionOf([TRIGGER], (type) => executionEventRegistry.currentVersion(type))
      .filter(({ schemaVersion }) => !triggers.some((c) => c.version === schemaVersion))
      .map(({ type, schemaVersion }) => `${type} v${schemaVersion}`);
    expect(missing).toEqual([]);
    expect(unrecorded(CONSUMED)).toEqual([]);
  });

  it.each(takeOvers.flatMap((c) => TARGET_STATES.map((targetState) => [c.name, c.index, c.type, c.version, targetState, c] as const)))(
    'settles %s after #%d (%s v%d), %s',
    async (_n, index, type, _v, targetState, takeOver) => {
      const { executionId, events } = relabelHistory(takeOver.events, index + 1);
      const count = await seed(events, executionId);
      const contract = contracts.get(String(events[0]?.data.tool));
      if (targetState === 'effect applied at the target') await applyAt(contract, executionId, events[0]?.data.arguments as JsonObject);
      // As OutcomeUnknownConsumer does: the execution id from the delivered event, caused by it.
      const trigger = parseEvent(events.at(-1));
      await handler().settle(trigger.data.executionId, { causationId: trigger.metadata.eventId });

      const appended = await appendedAfter(executionId, count);
      expect(appended.map((e) => e.type)).toEqual(expect.arrayContaining(type === TRIGGER ? ['ProbeAttempted'] : ['OutcomeUnknown']));
    },
  );

  it.each(histories.map((h) => [h.name, h] as const))(
    'reads the whole recorded history %s and writes only readable events',
    async (_name, { events: recorded }) => {
      const { executionId, events } = relabelHistory(recorded, recorded.length);
      const count = await seed(events, executionId);
      await handler().settle(executionId, { causationId: 'contract' });
      await appendedAfter(executionId, count);
    },
  );

  it('resolves a recorded needs_review over the review API; the resolution is readable', async () => {
    const inReview = histories.flatMap(({ events }) => {
      const settled = events.findIndex((e) => e.type === 'OutcomeSettled' && e.data['settlement'] === 'needs_review');
      return settled < 0 ? [] : [relabelHistory(events, settled + 1)];
    });
    expect(inReview.length).toBeGreaterThan(0);
    for (const { executionId, events } of inReview) {
      const count = await seed(events, executionId);
      const response = await fetch(`${reviewBase}/executions/${executionId}/resolve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
        body: JSON.stringify({ resolution: 'applied', reason: 'The marker shows exit 0 once the host was back.' }),
      });
      expect(response.status).toBe(200);
      expect((await appendedAfter(executionId, count)).map((e) => e.type)).toEqual(['ReviewResolved']);
    }
  });

  it('sweeps every recorded history (read model, settling, expiring windows) and writes only readable events', async () => {
    const streams = histories.map(({ events }) => relabelHistory(events, events.length));
    for (const { executionId, events } of streams) await seed(events, executionId);
    const problems: string[] = [];
    const sweeper = new Sweeper(
      runtime,
      orm.em,
      handler(),
      { intervalMs: 60_000, redeliverAfterMs: 60_000, batch: 500, concurrency: 4, claimMs: 60_000, replicaId: 'contract' },
      (level, message, fields) => {
        if (level !== 'info') problems.push(`${message} ${JSON.stringify(fields)}`);
      },
    );
    await sweeper.sweepOnce();
    expect(problems).toEqual([]);
    // The recorded windows closed long ago: what was not finished is expired now.
    const expired = await Promise.all(
      streams.map(async ({ executionId, events }) =>
        (await appendedAfter(executionId, events.length)).some((e) => e.type === 'CorrelationExpired'),
      ),
    );
    expect(expired).toContain(true);
  });

  it('wrote only readable events anywhere in the store, of every type it appends', async () => {
    const all = await runtime.store.readAll({ limit: 100_000 });
    for (const event of all.filter((e) => !seeded.has(e.eventId))) {
      expectReadable(event);
      written.add(event.type);
      if (event.type === 'OutcomeSettled') settlements.add(String(event.data['settlement']));
    }
    expect([...written].sort()).toEqual(WRITES);
    expect([...settlements].sort()).toEqual(expect.arrayContaining(SETTLEMENTS));
  });

  /** The request reached the target before the answer was lost: the effect is there under the execution id. */
  async function applyAt(contract: ToolContract | undefined, executionId: string, args: JsonObject): Promise<void> {
    if (contract?.channel === 'ssh') {
      await ssh.send({ contract: contract as SshToolContract, executionId, arguments: args, credential: sshd.clientPrivateKey });
      return;
    }
    const deploy = httpContract('create_deployment', 'idempotent', target.url);
    await http.send({
      contract: { ...deploy, target: { ...deploy.target, path: '/v1/projects/contract/deployments' } },
      executionId,
      arguments: {},
      credential: DEPLOY_SECRET,
    });
  }
});

/**
 * A recorded HTTP tool as a contract on the test target: the effect goes to a deployments route under
 * the execution id as Idempotency-Key, and the probe looks it up there.
 */
function httpContract(name: string, effect: string, origin: string): HttpToolContract {
  const yaml = `tools:
  - name: ${name}
    description: A recorded tool, pointed at the test target.
    channel: http
    target: { origin: ${origin}, method: POST, path: /v1/projects/recorded/deployments, timeout: 5s, idempotency_header: Idempotency-Key }
    credential_ref: deploy-api
    arguments: { type: object, additionalProperties: true }
    roles: {}
    effect: ${effect}
    probe:
      method: GET
      path: /v1/deployments/by-key/{execution_id}
      applied: { status: [200] }
      not_applied: { status: [404] }
`;
  const [contract] = parseToolContracts(yaml, `${name}.yaml`);
  if (contract?.channel !== 'http') throw new Error(`no HTTP contract for ${name}`);
  return contract;
}
