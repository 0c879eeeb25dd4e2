import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadToolContracts } from '@onceport/config';
import { executionStreamId } from '@onceport/contracts';
import {
  type ExecutionCommand,
  type HttpToolContract,
  type ToolContract,
  fingerprintIntent,
  matchRetry,
  newExecutionId,
  parseKeyring,
  retryCandidateOf,
  type KnownExecutionState,
} from '@onceport/domain';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ProjectionRunner, executionStream, openOrm, runMigrations } from '@onceport/event-store';
import { executionMatchesProjection, readModelEntities } from '@onceport/read-models';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { CredentialResolver, HttpChannel } from '@onceport/target-channels';
import { type ServicePorts, openServicePorts } from '@onceport/service-kit';
import { testArgumentSealer } from '@onceport/service-kit/testing';
import { reconcilerMigrations } from '../reconciler-migrations';
import { SettleExecutionHandler } from '../settle-execution/settle-execution.handler';
import { Sweeper } from './sweeper';

const DEMO = join(__dirname, '../../../domain/test/fixtures/contracts/demo.yaml');
const keyring = parseKeyring(`k1:${randomBytes(32).toString('base64')}`);

/** The sweep reads the store, not the broker: what no message announced still gets settled or expired. */
describe('Sweeper (real PostgreSQL, in-process delivery)', () => {
  let db: TestDatabase;
  let runtime: ServicePorts;
  let contracts: ReadonlyMap<string, ToolContract>;
  let channel: HttpChannel;
  let sweeper: Sweeper;
  let settle: SettleExecutionHandler;
  let orm: MikroORM;

  beforeAll(async () => {
    db = await createTestDatabase();
    runtime = await openServicePorts({
      serviceName: 'sweeper-test',
      databaseUrl: db.url,
      natsUrl: 'nats://127.0.0.1:4222',
      delivery: 'in_process',
    });
    await runMigrations(runtime.config.databaseUrl, reconcilerMigrations);
    orm = await openOrm({ databaseUrl: db.url, entities: readModelEntities });
    const dir = mkdtempSync(join(tmpdir(), 'sweeper-contracts-'));
    // A target nobody listens on: probes can't tell, and nothing is ever sent.
    writeFileSync(join(dir, 'demo.yaml'), readFileSync(DEMO, 'utf8').replace(/origin: https:\/\/[a-z.]+/g, 'origin: http://127.0.0.1:9'));
    contracts = (await loadToolContracts(dir)).byName;
    channel = new HttpChannel();
    settle = new SettleExecutionHandler({
      commands: runtime.commands,
      results: runtime.results,
      tracer: runtime.tracer,
      contracts,
      channel,
      sealer: testArgumentSealer(),
      credentials: new CredentialResolver({}, null),
      reconcilerId: 'sweep-test',
      limits: { maxProbes: 1, probeBackoffMs: 1, maxProbeBackoffMs: 1, maxAttempts: 3 },
    });
    sweeper = new Sweeper(
      runtime,
      orm.em,
      settle,
      { intervalMs: 60_000, redeliverAfterMs: 1_000, batch: 200, concurrency: 8, claimMs: 60_000, replicaId: 'sweep-test' },
      () => undefined,
    );
  });
  afterAll(async () => {
    await channel.close();
    await orm.close();
    await runtime.close();
    await db.drop();
  });

  async function seed(
    commands: ((id: string, now: Date) => ExecutionCommand)[],
    windowMs: number,
  ): Promise<{ id: string; fingerprint: string }> {
    const contract = contracts.get('create_deployment') as HttpToolContract;
    const args = { project: `p${randomBytes(3).toString('hex')}`, environment: 'staging', version: '1', strategy: 'rolling' };
    const id = newExecutionId(Date.now(), randomBytes(10));
    const intent = fingerprintIntent({ contract, actor: 'agent:s', intentScope: 'scope', arguments: args }, keyring);
    const accept = (now: Date): ExecutionCommand => ({
      type: 'AcceptExecution',
      metadata: { now },
      data: {
        executionId: id,
        tool: contract.name,
        channel: 'http',
        actor: 'agent:s',
        agentProcess: null,
        intentScope: 'scope',
        fingerprint: intent.fingerprint,
        record: intent.record,
        arguments: args,
        effectClass: contract.effect,
        approval: 'none',
        correlationWindowMs: windowMs,
        ledgerRetentionMs: null,
        clientIdempotencyKey: null,
      },
    });
    await runtime.commands.handle(executionStream(id), (_l, now) => accept(now), { causationId: 't' });
    for (const command of commands) await runtime.commands.handle(executionStream(id), (_l, now) => command(id, now), { causationId: 't' });
    return { id, fingerprint: intent.fingerprint };
  }
  const status = async (id: string) => (await runtime.commands.load(executionStream(id))).state.status;
  const dispatchedWithLease = (leaseMs: number) => [
    (_id: string, now: Date): ExecutionCommand => ({
      type: 'AuthorizeExecution',
      metadata: { now },
      data: { basis: 'policy', policyVersion: 'p' },
    }),
    (_id: string, now: Date): ExecutionCommand => ({
      type: 'StartDispatch',
      metadata: { now },
      data: { dispatcherId: leaseMs > 1 ? 'busy' : 'dead', leaseMs },
    }),
  ];

  it('expires an unfinished execution whose correlation window closed; it stops matching', async () => {
    const { id, fingerprint } = await seed([], 1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await sweeper.sweepOnce();
    expect(await status(id)).toBe('expired');
    const state = (await runtime.commands.load(executionStream(id))).state as KnownExecutionState;
    const match = matchRetry(
      [retryCandidateOf(state)],
      { fingerprints: [fingerprint as never], actor: 'agent:s', intentScope: 'scope' },
      new Date(),
    );
    expect(match.kind).toBe('new');
  });

  it('finds a dispatch whose dispatcher died (no OutcomeUnknown was ever published) and settles it', async () => {
    const { id } = await seed(
      [
        (_id, now) => ({ type: 'AuthorizeExecution', metadata: { now }, data: { basis: 'policy', policyVersion: 'p' } }),
        (_id, now) => ({ type: 'StartDispatch', metadata: { now }, data: { dispatcherId: 'dead', leaseMs: 1 } }),
      ],
      3_600_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    await sweeper.sweepOnce();
    const events = (await runtime.commands.load(executionStream(id))).events.map((e) => e.type);
    expect(events).toEqual(expect.arrayContaining(['OutcomeUnknown', 'ProbeAttempted', 'OutcomeSettled']));
    // The probe reached nobody: after its one allowed try the execution waits for a human.
    expect(await status(id)).toBe('needs_review');
  });

  it('a pass that found its execution changed elsewhere releases it: it is settled in the next pass, not one claim time later', async () => {
    const { id } = await seed(
      [
        (_id, now) => ({ type: 'AuthorizeExecution', metadata: { now }, data: { basis: 'policy', policyVersion: 'p' } }),
        (_id, now) => ({ type: 'StartDispatch', metadata: { now }, data: { dispatcherId: 'dead', leaseMs: 1 } }),
      ],
      3_600_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The first pass loses the race to another path (as when the OutcomeUnknown consumer probes first).
    let raced = false;
    const racing = {
      settle: async (executionId: string, causation: { causationId: string }) => {
        if (executionId === id && !raced) {
          raced = true;
          const { version } = await runtime.commands.load(executionStream(id));
          return { done: 'nothing' as const, status: 'changed_elsewhere' as const, nextCheckAtMs: null, version };
        }
        return settle.settle(executionId, causation);
      },
    } as unknown as SettleExecutionHandler;
    const racer = new Sweeper(
      runtime,
      orm.em,
      racing,
      { intervalMs: 60_000, redeliverAfterMs: 1_000, batch: 200, concurrency: 1, claimMs: 60_000, replicaId: 'sweep-racer' },
      () => undefined,
    );
    // Released at once, so the same pass (or at worst the next) takes it again and settles it.
    await racer.sweepOnce();
    expect(raced).toBe(true);
    if ((await status(id)) === 'dispatched') await racer.sweepOnce();
    expect(await status(id)).toBe('needs_review');
  });

  it('more long-running dispatches than one batch do not hide a newer dead one: it is swept in the first pass', async () => {
    // More in flight (lease far off) than the batch of 200, all accepted before the dead one.
    const busy: string[] = [];
    for (let chunk = 0; chunk < 25; chunk++) {
      busy.push(...(await Promise.all(Array.from({ length: 10 }, async () => (await seed(dispatchedWithLease(3_600_000), 3_600_000)).id))));
    }
    const { id: dead } = await seed(dispatchedWithLease(1), 3_600_000);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await sweeper.sweepOnce();
    expect((await runtime.commands.load(executionStream(dead))).events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['OutcomeUnknown', 'OutcomeSettled']),
    );
    // The in-flight ones are not due: left alone, not even claimed.
    expect(new Set(await Promise.all(busy.map(status)))).toEqual(new Set(['dispatched']));
    const claimed = await runtime.pool.query('SELECT count(*)::int AS n FROM onceport.reconcile_checks WHERE execution_id = ANY($1)', [
      busy,
    ]);
    expect(claimed.rows[0].n).toBe(0);
  });

  // Last in the file: it leaves an event in the shared store that the projection cannot apply.
  it('a projection catch-up that fails does not skip the other steps: settling and expiry still run, and the failure is logged', async () => {
    const { id: dead } = await seed(dispatchedWithLease(1), 3_600_000);
    const { id: lapsed } = await seed([], 1);
    await new ProjectionRunner(runtime.pool, executionMatchesProjection).catchUp(); // both are in the read model
    // A writer of another version appends an ExecutionAccepted no schema of ours reads.
    const poisonId = newExecutionId(Date.now(), randomBytes(10));
    await runtime.store.append(
      executionStreamId(poisonId),
      [
        {
          eventId: randomUUID(),
          type: 'ExecutionAccepted',
          schemaVersion: 1,
          data: { executionId: poisonId, unknown_field: true },
          metadata: { correlationId: 'x', causationId: 'x' },
        },
      ],
      { expectedVersion: 'no_stream' },
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    const lines: { message: string; fields?: Record<string, unknown> }[] = [];
    const stuck = new Sweeper(
      runtime,
      orm.em,
      settle,
      { intervalMs: 60_000, redeliverAfterMs: 1_000, batch: 200, concurrency: 8, claimMs: 60_000, replicaId: 'sweep-stuck' },
      (_level, message, fields) => lines.push({ message, ...(fields ? { fields } : {}) }),
    );
    await stuck.sweepOnce();
    expect(lines).toContainEqual({ message: 'sweep step failed', fields: expect.objectContaining({ step: 'projection catch-up' }) });
    expect((await runtime.commands.load(executionStream(dead))).events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['OutcomeUnknown', 'OutcomeSettled']),
    );
    expect(await status(lapsed)).toBe('expired');
  });
});
