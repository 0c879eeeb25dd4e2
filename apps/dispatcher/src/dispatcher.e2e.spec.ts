import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventSubject, executionStreamId } from '@onceport/contracts';
import { loadToolContracts } from '@onceport/config';
import type { ToolContract } from '@onceport/domain';
import { PostgresEventStore, executionStream, CommandHandler } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { toWireEvent } from '@onceport/messaging';
import { type NatsKit, TestNatsServer, connectKit, waitFor } from '@onceport/messaging/testing';
import { allMigrations } from '@onceport/service-kit';
import { type AppProcess, startAppProcess } from '@onceport/gateway-harness';
import { testEncryptionKeys } from '@onceport/service-kit/testing';
import { type TestTarget, startTestTarget } from '@onceport/test-target';
import { DEPLOY_ARGUMENTS, newTraceparent, seedAuthorized, tablesHolding, writeDemoContracts } from '../test/e2e-fixtures';

/**
 * The dispatcher as its own process, on real JetStream, PostgreSQL and HTTP. The test plays intake
 * and authorization: it writes accepted and authorized executions into the store, and the
 * process's outbox relay carries them to the dispatcher's durable consumer.
 */
describe('dispatcher process (real JetStream, PostgreSQL, HTTP target)', () => {
  const secret = `sk_live_${randomBytes(18).toString('base64url')}`;
  const workDir = mkdtempSync(join(tmpdir(), 'onceport-dispatcher-e2e-'));
  const spanFile = join(workDir, 'spans.jsonl');
  let nats: TestNatsServer;
  let db: TestDatabase;
  let target: TestTarget;
  let contractsDir: { dir: string; remove(): Promise<void> };
  let contracts: Map<string, ToolContract>;
  let kit: NatsKit;
  let app: AppProcess;
  let store: PostgresEventStore;
  let commands: CommandHandler;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    db = await createTestDatabase(allMigrations.filter((m) => !m.id.startsWith('00')));
    target = await startTestTarget();
    // The target applies every request it gets: a second send would be a second effect.
    target.setBehavior({ honour_idempotency: false });
    contractsDir = await writeDemoContracts(target.url);
    contracts = new Map((await loadToolContracts(contractsDir.dir)).contracts.map((c) => [c.name, c]));
    store = new PostgresEventStore(db.pool);
    commands = new CommandHandler(store);
    kit = await connectKit(nats.url);
    app = await startAppProcess('dispatcher', {
      DATABASE_URL: db.url,
      NATS_URL: nats.url,
      ONCEPORT_DELIVERY: 'jetstream',
      ONCEPORT_CONTRACTS_DIR: contractsDir.dir,
      ONCEPORT_CREDENTIAL_DEPLOY_API: secret,
      ONCEPORT_ENCRYPTION_KEYS: testEncryptionKeys(),
      ONCEPORT_DISPATCHER_ID: 'dispatcher-e2e',
      ONCEPORT_DISPATCH_RETRY_BACKOFF: '50',
      ONCEPORT_TRACE_FILE: spanFile,
      LOG_LEVEL: 'debug',
    });
  });

  afterAll(async () => {
    await app?.kill();
    await kit?.close();
    await target?.stop();
    await contractsDir?.remove();
    await db?.drop();
    await nats?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  const contract = (name: string): ToolContract => {
    const found = contracts.get(name);
    if (!found) throw new Error(`no contract ${name}`);
    return found;
  };
  const status = async (executionId: string): Promise<string> => (await commands.load(executionStream(executionId))).state.status;
  const types = async (executionId: string): Promise<string[]> =>
    (await commands.load(executionStream(executionId))).events.map((e) => e.type);

  let first: { executionId: string; traceparent: string };

  it('dispatches an authorized execution exactly once: 1 effect under its execution id, the stream completed', async () => {
    const traceparent = newTraceparent();
    const executionId = await seedAuthorized(commands, contract('create_deployment'), DEPLOY_ARGUMENTS, traceparent);
    first = { executionId, traceparent };

    await waitFor(async () => (await status(executionId)) === 'completed_result_not_delivered', 30_000, 'the outcome');

    expect(target.effects()).toEqual([expect.objectContaining({ route: 'deployments', idempotencyKey: executionId })]);
    expect(await types(executionId)).toEqual(['ExecutionAccepted', 'ExecutionAuthorized', 'DispatchStarted', 'OutcomeObserved']);
    const started = (await commands.load(executionStream(executionId))).events[2];
    expect(started?.data).toMatchObject({ dispatcherId: 'dispatcher-e2e', attempt: 1 });
    expect(started?.metadata.traceparent?.split('-')[1]).toBe(traceparent.split('-')[1]);
  });

  it('sends nothing more when JetStream delivers the same ExecutionAuthorized again under another message id', async () => {
    const authorized = (await store.readStream(executionStreamId(first.executionId))).find((e) => e.type === 'ExecutionAuthorized');
    if (!authorized) throw new Error('no ExecutionAuthorized');

    const subject = eventSubject(authorized.type, authorized.schemaVersion);
    await kit.js.publish(subject, JSON.stringify(toWireEvent(authorized)), { msgID: `redelivery-${authorized.eventId}` });
    // And a copy under a new event id: the execution's stream stops it as it stops the redelivery.
    const copy = toWireEvent(authorized);
    await kit.js.publish(subject, JSON.stringify({ ...copy, metadata: { ...copy.metadata, eventId: randomUUID() } }), {
      msgID: `copy-${authorized.eventId}`,
    });
    await sleep(2_000);

    expect(target.effectCount()).toBe(1);
    expect(await types(first.executionId)).toHaveLength(4);
  });

  it('fails a dispatch whose credential is not configured, without sending', async () => {
    const executionId = await seedAuthorized(
      commands,
      contract('send_email'),
      { recipient: 'ada@example.com', campaign_id: 'spring', subject: 'Hello', body: 'Hi Ada' },
      newTraceparent(),
    );

    await waitFor(async () => (await status(executionId)) === 'failed', 30_000, 'the failure');

    expect(target.effectCount({ route: 'emails' })).toBe(0);
    expect((await commands.load(executionStream(executionId))).events.at(-1)).toMatchObject({
      type: 'DispatchFailedBeforeSend',
      data: { retryable: false, reason: expect.stringContaining('ONCEPORT_CREDENTIAL_MAIL_API') },
    });
  });

  it('on SIGTERM lets the dispatch in flight finish and be recorded, then exits', async () => {
    // Held long enough that SIGTERM comes while the dispatch is in flight, on a loaded machine too.
    target.setBehavior({ route: 'deployments', delay_ms: 7_000, times: 1 });
    const executionId = await seedAuthorized(
      commands,
      contract('create_deployment'),
      { ...DEPLOY_ARGUMENTS, version: '2.0.2' },
      newTraceparent(),
    );
    await waitFor(async () => (await types(executionId)).includes('DispatchStarted'), 30_000, 'the dispatch to start');

    const stoppedAt = Date.now();
    const code = await app.stop(60_000);

    // Every shutdown hook ran and the process exited 0 (a kill would give no code, a failure 1).
    expect(code).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(30_000);
    expect(app.output()).not.toMatch(/Error during shutdown|UnhandledPromiseRejection/i);
    expect(await status(executionId)).toBe('completed_result_not_delivered');
    const observed = (await commands.load(executionStream(executionId))).events.at(-1);
    if (observed?.type !== 'OutcomeObserved') throw new Error('expected OutcomeObserved');
    expect(Date.parse(observed.data.observedAt)).toBeGreaterThan(stoppedAt); // it was in flight when SIGTERM came
    expect(target.effectCount({ route: 'deployments' })).toBe(2);
  });

  it('leaves the credential nowhere: not in any table, the process output or the spans', async () => {
    expect(first).toBeDefined(); // the dispatches above used the credential
    expect(await tablesHolding(db.pool, secret)).toEqual([]);
    expect(app.output()).not.toContain(secret);
    expect(app.output()).toContain('dispatch attempt closed');
    expect(existsSync(spanFile)).toBe(true);
    const spans = readFileSync(spanFile, 'utf8');
    expect(spans).not.toContain(secret);
    const dispatchSpan = spans
      .trim()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { name: string; traceId: string; parentSpanId: string | null; attributes: Record<string, unknown> },
      )
      .find((span) => span.name === 'dispatch create_deployment' && span.traceId === first.traceparent.split('-')[1]);
    expect(dispatchSpan).toMatchObject({
      parentSpanId: first.traceparent.split('-')[2],
      attributes: { 'onceport.execution_id': first.executionId, 'onceport.attempt': 1, 'onceport.outcome': 'observed' },
    });
  });

  it('refuses to start without its encryption key ring, or with a key that is not 32 bytes, naming the variable (exit 78)', async () => {
    // PostgreSQL and NATS point at closed ports: the environment is judged before anything connects.
    const base = {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      NATS_URL: 'nats://127.0.0.1:1',
      ONCEPORT_CONTRACTS_DIR: contractsDir.dir,
    };
    const missing = startAppProcess('dispatcher', base);
    await expect(missing).rejects.toThrow(/exited with 78 before listening/);
    await expect(missing).rejects.toThrow('ONCEPORT_ENCRYPTION_KEYS: missing; expected "<key-id>:<base64 of exactly 32 random bytes>');
    const short = `k1:${randomBytes(48).toString('base64')}`;
    const wrong = startAppProcess('dispatcher', { ...base, ONCEPORT_ENCRYPTION_KEYS: short });
    await expect(wrong).rejects.toThrow('ONCEPORT_ENCRYPTION_KEYS: invalid value (not shown)');
    await expect(wrong).rejects.toThrow('key id "k1": 48 bytes, AES-256 needs exactly 32');
    await expect(wrong).rejects.not.toThrow(short.slice(3, 20));
  });
});
