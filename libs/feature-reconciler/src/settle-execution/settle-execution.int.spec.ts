import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadToolContracts } from '@onceport/config';
import {
  type ExecutionCommand,
  type HttpToolContract,
  type ToolContract,
  fingerprintIntent,
  newExecutionId,
  parseKeyring,
} from '@onceport/domain';
import { CredentialResolver, HttpChannel } from '@onceport/target-channels';
import { type ServicePorts, openServicePorts } from '@onceport/service-kit';
import { testArgumentSealer } from '@onceport/service-kit/testing';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { type TestTarget, startTestTarget } from '@onceport/test-target';
import { STOOD_DOWN_MESSAGE, SettleExecutionHandler } from './settle-execution.handler';
import { executionStream } from '@onceport/event-store';

const DEMO = join(__dirname, '../../../domain/test/fixtures/contracts/demo.yaml');
/**
 * A conditional tool: promote a release only if it is not live yet. Its probe reads the state the
 * condition is about: no deployment under the execution id (404) → the condition still holds.
 */
const CONDITIONAL_TOOL = `tools:
  - name: promote_release
    title: Promote a release
    description: Make a release live unless it already is.
    channel: http
    target:
      origin: {origin}
      method: POST
      path: /v1/projects/{project}/deployments
      timeout: 5s
      # The provider files the promotion under the execution id, so the probe can look it up.
      idempotency_header: Idempotency-Key
    credential_ref: deploy-api
    arguments:
      type: object
      properties:
        project: { type: string, pattern: "^[a-z0-9-]{1,40}$" }
        version: { type: string, minLength: 1 }
      required: [project, version]
    roles:
      project: identity
      version: identity
    effect: conditional
    probe:
      method: GET
      path: /v1/deployments/by-key/{execution_id}
      applied: { status: [200], json_path: $.state, equals: succeeded }
      not_applied: { status: [404] }
`;
const keyring = parseKeyring(`k1:${randomBytes(32).toString('base64')}`);

describe('SettleExecutionHandler (real PostgreSQL, real HTTP target)', () => {
  let db: TestDatabase;
  let runtime: ServicePorts;
  let target: TestTarget;
  let contracts: ReadonlyMap<string, ToolContract>;
  let channel: HttpChannel;
  let logged: { message: string; fields: Record<string, unknown> }[] = [];
  const handler = (id = 'r1', maxProbes = 3, probeChannel?: HttpChannel) =>
    new SettleExecutionHandler({
      log: (_level, message, fields = {}) => void logged.push({ message, fields }),
      commands: runtime.commands,
      results: runtime.results,
      tracer: runtime.tracer,
      contracts,
      channel: probeChannel ?? channel,
      // Realistic secrets: the channel scrubs the credential from answers, and a one-letter one would scrub the JSON keys a probe reads.
      sealer: testArgumentSealer(),
      credentials: new CredentialResolver(
        {
          ONCEPORT_CREDENTIAL_DEPLOY_API: 'tok_deploy_7f3a',
          ONCEPORT_CREDENTIAL_PAYMENTS_LIVE: 'tok_pay_91c2',
          ONCEPORT_CREDENTIAL_MAIL_API: 'tok_mail_44d0',
        },
        null,
      ),
      reconcilerId: id,
      limits: { maxProbes, probeBackoffMs: 10, maxProbeBackoffMs: 20, maxAttempts: 3 },
    });

  beforeAll(async () => {
    db = await createTestDatabase();
    target = await startTestTarget();
    runtime = await openServicePorts({
      serviceName: 'reconciler-test',
      databaseUrl: db.url,
      natsUrl: 'nats://127.0.0.1:4222',
      delivery: 'in_process',
    });
    const dir = mkdtempSync(join(tmpdir(), 'reconciler-contracts-'));
    writeFileSync(join(dir, 'demo.yaml'), readFileSync(DEMO, 'utf8').replace(/origin: https:\/\/[a-z.]+/g, `origin: ${target.url}`));
    writeFileSync(join(dir, 'conditional.yaml'), CONDITIONAL_TOOL.replace('{origin}', target.url));
    contracts = (await loadToolContracts(dir)).byName;
    channel = new HttpChannel();
  });
  afterAll(async () => {
    await channel.close();
    await runtime.close();
    await target.stop();
    await db.drop();
  });

  /** Drives an execution to `dispatched` (and `dispatched_unknown` unless `lease` says the dispatcher died). */
  async function dispatched(tool: string, args: Record<string, unknown>, how: { unknown: boolean; leaseMs?: number }): Promise<string> {
    const contract = contracts.get(tool) as HttpToolContract;
    const executionId = newExecutionId(Date.now(), randomBytes(10));
    const intent = fingerprintIntent({ contract, actor: 'agent:t', intentScope: 'scope', arguments: args }, keyring);
    const steps: ((now: Date) => ExecutionCommand)[] = [
      (now) => ({
        type: 'AcceptExecution',
        metadata: { now },
        data: {
          executionId,
          tool,
          channel: 'http',
          actor: 'agent:t',
          agentProcess: null,
          intentScope: 'scope',
          fingerprint: intent.fingerprint,
          record: intent.record,
          arguments: args as Record<string, never>,
          effectClass: contract.effect,
          approval: 'none',
          correlationWindowMs: 3_600_000,
          ledgerRetentionMs: null,
          clientIdempotencyKey: null,
        },
      }),
      (now) => ({ type: 'AuthorizeExecution', metadata: { now }, data: { basis: 'policy', policyVersion: 'p' } }),
      (now) => ({ type: 'StartDispatch', metadata: { now }, data: { dispatcherId: 'd', leaseMs: how.leaseMs ?? 60_000 } }),
    ];
    if (how.unknown)
      steps.push((now) => ({
        type: 'MarkOutcomeUnknown',
        metadata: { now },
        data: { attempt: 1, reason: 'reset after the request was written' },
      }));
    for (const step of steps) await runtime.commands.handle(executionStream(executionId), (_l, now) => step(now), { causationId: 'test' });
    return executionId;
  }
  const types = async (id: string) => (await runtime.commands.load(executionStream(id))).events.map((e) => e.type);
  const deploy = (project: string) => ({ project, environment: 'staging', version: '1', strategy: 'rolling' });
  /** The request reached the target before the connection died: the effect is there under the execution id. */
  const applyAtTarget = (id: string, project: string) =>
    channel.send({
      contract: contracts.get('create_deployment') as HttpToolContract,
      executionId: id,
      arguments: deploy(project),
      credential: 't',
    });

  it('idempotent, the effect happened: the probe finds it and settles completed without re-sending; 1 effect', async () => {
    const id = await dispatched('create_deployment', deploy('probe-applied'), { unknown: true });
    await applyAtTarget(id, 'probe-applied');
    const outcome = await handler().settle(id, { causationId: 'test' });
    expect(outcome).toMatchObject({ done: 'settle', status: 'completed_result_not_delivered' });
    expect(await types(id)).toEqual(expect.arrayContaining(['ProbeAttempted', 'OutcomeSettled']));
    expect(target.effectCount({ route: 'deployments', idempotencyKey: id })).toBe(1);
  });

  it('idempotent, nothing happened: the probe says so and the execution is authorized again for a re-dispatch', async () => {
    const id = await dispatched('create_deployment', deploy('probe-missing'), { unknown: true });
    const outcome = await handler().settle(id, { causationId: 'test' });
    expect(outcome.status).toBe('authorized');
    expect(target.effectCount({ idempotencyKey: id })).toBe(0);
  });

  it('a dispatcher that died after DispatchStarted: past the lease the outcome becomes unknown, then the probe settles it', async () => {
    const id = await dispatched('create_deployment', deploy('dead-dispatcher'), { unknown: false, leaseMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const outcome = await handler().settle(id, { causationId: 'test' });
    expect(await types(id)).toEqual(expect.arrayContaining(['OutcomeUnknown', 'ProbeAttempted', 'OutcomeSettled']));
    expect(outcome.status).toBe('authorized');
  });

  it('irreversible: never re-sent, straight to needs_review (the probe may still prove it applied)', async () => {
    const id = await dispatched(
      'charge_payment',
      { customer_id: 'cus_1', amount_cents: 100, currency: 'EUR', card_token: 'tok_visa_4242' },
      { unknown: true },
    );
    const outcome = await handler().settle(id, { causationId: 'test' });
    expect(outcome.status).toBe('needs_review');
    expect(target.effectCount({ route: 'payments' })).toBe(0);
  });

  it('a probe that keeps failing ends in needs_review after the bound', async () => {
    target.setBehavior({ route: 'deployments.status', fail_status: 503 });
    try {
      const id = await dispatched('create_deployment', deploy('flaky-probe'), { unknown: true });
      for (let i = 0; i < 10; i++) {
        const outcome = await handler('r1', 2).settle(id, { causationId: 'test' });
        if (outcome.done === 'settle') break;
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      expect((await runtime.commands.load(executionStream(id))).state.status).toBe('needs_review');
      expect((await types(id)).filter((t) => t === 'ProbeAttempted')).toHaveLength(2);
    } finally {
      target.setBehavior({ route: 'deployments.status', normal: true });
    }
  });

  it('two reconcilers racing on one unknown execution: exactly one settles, each probe number recorded once', async () => {
    const id = await dispatched('create_deployment', deploy('race'), { unknown: true });
    await applyAtTarget(id, 'race');
    await Promise.all([
      handler('a').settle(id, { causationId: 'a' }),
      handler('b').settle(id, { causationId: 'b' }),
      handler('c').settle(id, { causationId: 'c' }),
    ]);
    const events = await types(id);
    expect(events.filter((t) => t === 'OutcomeSettled')).toHaveLength(1);
    expect(events.filter((t) => t === 'ProbeAttempted')).toHaveLength(1);
    expect((await runtime.commands.load(executionStream(id))).state.status).toBe('completed_result_not_delivered');
  });

  it('a probe that finds the effect applied keeps its answer as the result (by reference, with its digest) and says how it was settled', async () => {
    const id = await dispatched('create_deployment', deploy('probe-result'), { unknown: true });
    await applyAtTarget(id, 'probe-result');
    await handler().settle(id, { causationId: 'test' });
    const loaded = await runtime.commands.load(executionStream(id));
    const settled = loaded.events.find((e) => e.type === 'OutcomeSettled');
    expect(settled?.data).toMatchObject({
      settlement: 'completed',
      targetStatus: 200,
      reason: expect.stringMatching(/^probe 1 found the effect applied \(probe answered 200.*\); its answer is kept as the result$/),
    });
    const reference = loaded.state.status === 'none' ? null : loaded.state.progress.lastResult;
    expect(reference).not.toBeNull();
    const stored = await runtime.results.get(reference?.ref ?? '');
    expect(stored?.reference.digest).toBe(
      `sha256:${createHash('sha256')
        .update(stored?.body ?? '')
        .digest('hex')}`,
    );
    expect(JSON.parse(stored?.body.toString('utf8') ?? 'null')).toMatchObject({ idempotency_key: id, state: 'succeeded' });
  });

  it('an agent retry attaching while the probe is out does not fence the probe out: the same pass records it and settles; 1 effect', async () => {
    const id = await dispatched('create_deployment', deploy('retry-during-probe'), { unknown: true });
    await applyAtTarget(id, 'retry-during-probe');
    // The real channel, held at the start of its probe (the settle already loaded its version) until the retry is stored.
    let probeCalled!: () => void;
    const probing = new Promise<void>((resolve) => (probeCalled = resolve));
    let releaseProbe!: () => void;
    const retryStored = new Promise<void>((resolve) => (releaseProbe = resolve));
    const held = new (class extends HttpChannel {
      override async probe(...input: Parameters<HttpChannel['probe']>): ReturnType<HttpChannel['probe']> {
        probeCalled();
        await retryStored;
        return super.probe(...input);
      }
    })();
    try {
      const settling = handler('r1', 3, held).settle(id, { causationId: 'test' });
      await probing;
      const correlation = { transport: 'mcp' as const, jsonRpcId: 7, sessionId: 'sess-retry', requestId: null };
      await runtime.commands.handle(
        executionStream(id),
        (_loaded, now) => ({
          type: 'AttachRetry',
          metadata: { now },
          data: { correlation, agentProcess: null, clientIdempotencyKey: null },
        }),
        { causationId: 'retry' },
        { appendAnywhere: true },
      );
      releaseProbe();
      expect(await settling).toMatchObject({ done: 'settle', status: 'completed_result_not_delivered' });
    } finally {
      await held.close();
    }
    const events = await types(id);
    expect(events.slice(events.indexOf('OutcomeUnknown') + 1)).toEqual(['RetryAttached', 'ProbeAttempted', 'OutcomeSettled']);
    expect(target.effectCount({ route: 'deployments', idempotencyKey: id })).toBe(1);
  });

  it('two reconcilers probing at once: the later write is fenced out, and the one that stood down says so with the execution id', async () => {
    const id = await dispatched('create_deployment', deploy('stand-down'), { unknown: true });
    await applyAtTarget(id, 'stand-down');
    // A slow probe answer: both load the same version before either can write.
    target.setBehavior({ route: 'deployments.status', delay_ms: 300 });
    logged = [];
    try {
      const outcomes = await Promise.all([handler('a').settle(id, { causationId: 'a' }), handler('b').settle(id, { causationId: 'b' })]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['changed_elsewhere', 'completed_result_not_delivered']);
    } finally {
      target.setBehavior({ route: 'deployments.status', normal: true });
    }
    expect((await types(id)).filter((t) => t === 'OutcomeSettled')).toHaveLength(1);
    expect(logged).toEqual([
      {
        message: STOOD_DOWN_MESSAGE,
        fields: expect.objectContaining({ executionId: id, reconcilerId: expect.stringMatching(/^[ab]$/), wouldHave: 'RecordProbe' }),
      },
    ]);
  });

  describe('conditional effect, a real probe of the condition', () => {
    const promote = (project: string) => ({ project, version: '2' });
    const promoteAtTarget = (id: string, project: string) =>
      channel.send({
        contract: contracts.get('promote_release') as HttpToolContract,
        executionId: id,
        arguments: promote(project),
        credential: 't',
      });

    it('the condition still holds (nothing applied): settled not_applied once, authorized for one re-dispatch, nothing sent by the reconciler', async () => {
      const id = await dispatched('promote_release', promote('cond-holds'), { unknown: true });
      expect((await handler().settle(id, { causationId: 'test' })).status).toBe('authorized');
      // Asked again (a redelivered OutcomeUnknown, the sweep): nothing more happens.
      expect((await handler().settle(id, { causationId: 'again' })).done).toBe('nothing');
      const events = (await runtime.commands.load(executionStream(id))).events;
      expect(events.filter((e) => e.type === 'OutcomeSettled').map((e) => e.data)).toEqual([
        expect.objectContaining({ settlement: 'not_applied', result: null }),
      ]);
      expect(events.filter((e) => e.type === 'ProbeAttempted').map((e) => e.data)).toEqual([
        expect.objectContaining({ verdict: 'not_applied' }),
      ]);
      expect(target.effectCount({ idempotencyKey: id })).toBe(0);
    });

    it('the condition no longer holds (the promotion happened): settled completed from the probe, never re-sent; 1 effect', async () => {
      const id = await dispatched('promote_release', promote('cond-gone'), { unknown: true });
      await promoteAtTarget(id, 'cond-gone');
      const outcome = await handler().settle(id, { causationId: 'test' });
      expect(outcome.status).toBe('completed_result_not_delivered');
      const events = (await runtime.commands.load(executionStream(id))).events;
      expect(events.filter((e) => e.type === 'OutcomeSettled').map((e) => e.data)).toEqual([
        expect.objectContaining({ settlement: 'completed', targetStatus: 200 }),
      ]);
      expect(target.effectCount({ idempotencyKey: id })).toBe(1);
    });
  });
});
