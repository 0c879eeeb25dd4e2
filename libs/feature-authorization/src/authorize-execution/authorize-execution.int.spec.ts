import { sessionStreamId } from '@onceport/contracts';
import { Pool } from 'pg';
import { CommandHandler, PostgresEventStore, emptyStream, executionStream, loadStream, sessionStream } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase, recordStreamReads } from '@onceport/event-store/testing';
import { allMigrations, initTracing } from '@onceport/service-kit';
import { createHandler, delivered, freshExecutionId, seedAccepted, testDirectory } from '../testing/authorization-fixtures';
import { changeVault } from '../vault/change-vault';
import { type AuthorizeExecutionHandler } from './authorize-execution.handler';
import { approvalIdFor } from './decide-authorization';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('authorizing accepted executions (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let commands: CommandHandler;
  let handler: AuthorizeExecutionHandler;

  beforeAll(() => initTracing({ serviceName: 'authorization-test', env: {} }));
  beforeEach(async () => {
    db = await createTestDatabase(allMigrations.filter((m) => !m.id.startsWith('00')));
    store = new PostgresEventStore(db.pool);
    commands = new CommandHandler(store);
    handler = await createHandler(store, commands);
  });
  afterEach(() => db.drop());

  const stateOf = async (event: { stream: { id: string } }) =>
    (await commands.load(executionStream(event.stream.id.replace('execution-', '')))).state;
  const eventsOf = async (event: { stream: { id: string } }) =>
    (await commands.load(executionStream(event.stream.id.replace('execution-', '')))).events;
  const sessionEvents = async (actor: string, process: string) => (await loadStream(store, sessionStream(actor, process))).events;

  it('rung 1: a locked vault denies with vault_locked; after unlock, calls are decided again', async () => {
    await changeVault(commands, 'LockVault', 'ops:alice', 'deploy key leaked', { causationId: 'test' });
    const first = await seedAccepted(commands, store, { actor: 'agent:deploy-bot', tool: 'get_build_status' });
    expect(await handler.handle(first, delivered)).toMatchObject({ decided: true, rung: 'vault_locked', appended: ['ExecutionDenied'] });
    expect(await stateOf(first)).toMatchObject({
      status: 'denied',
      denial: {
        code: 'vault_locked',
        reason: 'The vault is locked: deploy key leaked (by ops:alice). Every call is denied until an operator unlocks it.',
      },
    });
    expect(await store.readStream(sessionStreamId('agent:deploy-bot', 'mcp-sess-1'))).toEqual([]);

    await changeVault(commands, 'UnlockVault', 'ops:alice', 'key rotated', { causationId: 'test' });
    const second = await seedAccepted(commands, store, { actor: 'agent:deploy-bot', tool: 'get_build_status' });
    await handler.handle(second, delivered);
    expect((await stateOf(second)).status).toBe('authorized');
  });

  it('rung 2: an actor missing from the actors file, or calling a tool not listed for it, is denied', async () => {
    const stranger = await seedAccepted(commands, store, { actor: 'agent:stranger', tool: 'get_build_status' });
    const forbidden = await seedAccepted(commands, store, { actor: 'agent:deploy-bot', tool: 'charge_payment' });
    await handler.handle(stranger, delivered);
    await handler.handle(forbidden, delivered);
    expect(await stateOf(stranger)).toMatchObject({
      status: 'denied',
      denial: { code: 'actor_not_allowed', reason: expect.stringContaining('agent:stranger is not in the actors file') },
    });
    expect(await stateOf(forbidden)).toMatchObject({
      status: 'denied',
      denial: { code: 'actor_not_allowed', reason: expect.stringContaining('may not call charge_payment') },
    });
  });

  it('rung 3, automatic: a new agent process is granted a session once; its first call rests on the grant, later ones on policy', async () => {
    const first = await seedAccepted(commands, store, {
      actor: 'agent:deploy-bot',
      tool: 'create_deployment',
      agentProcess: 'mcp-sess-new',
    });
    expect(await handler.handle(first, delivered)).toMatchObject({
      rung: 'authorized',
      grantRecorded: true,
      appended: ['ExecutionAuthorized'],
    });
    const grants = await sessionEvents('agent:deploy-bot', 'mcp-sess-new');
    expect(grants).toEqual([
      expect.objectContaining({
        type: 'SessionGranted',
        data: expect.objectContaining({
          actor: 'agent:deploy-bot',
          agentProcess: 'mcp-sess-new',
          basis: 'automatic',
          grantedBy: 'svc:authorization',
          policyVersion: testDirectory().policyVersion,
        }),
        metadata: expect.objectContaining({
          correlationId: first.stream.id.replace('execution-', ''),
          causationId: first.metadata.eventId,
          actor: 'svc:authorization',
        }),
      }),
    ]);
    expect(await stateOf(first)).toMatchObject({ status: 'authorized', progress: { authorization: { basis: 'session_grant' } } });

    const second = await seedAccepted(commands, store, {
      actor: 'agent:deploy-bot',
      tool: 'get_build_status',
      agentProcess: 'mcp-sess-new',
    });
    expect(await handler.handle(second, delivered)).toMatchObject({ rung: 'authorized', grantRecorded: false });
    expect(await stateOf(second)).toMatchObject({ status: 'authorized', progress: { authorization: { basis: 'policy' } } });
    expect(await sessionEvents('agent:deploy-bot', 'mcp-sess-new')).toHaveLength(1);
  });

  it('rung 3, automatic: a call without an agent process counts against the actor itself', async () => {
    const call = await seedAccepted(commands, store, { actor: 'agent:deploy-bot', tool: 'get_build_status', agentProcess: null });
    await handler.handle(call, delivered);
    expect(await sessionEvents('agent:deploy-bot', 'agent:deploy-bot')).toHaveLength(1);
  });

  it('rung 3, human: a new agent process stops at awaiting_approval, never authorized, nothing granted', async () => {
    const call = await seedAccepted(commands, store, { actor: 'agent:human-bot', tool: 'get_build_status', agentProcess: 'runtime-7' });
    const before = Date.now();
    expect(await handler.handle(call, delivered)).toMatchObject({
      rung: 'session_approval',
      grantRecorded: false,
      appended: ['ApprovalRequested'],
    });
    const state = await stateOf(call);
    if (state.status !== 'awaiting_approval') throw new Error(`expected awaiting_approval, got ${state.status}`);
    expect(state.approvalRequest).toMatchObject({
      approvalId: approvalIdFor(state.facts.executionId),
      reason: 'New agent process needs a session grant: runtime-7 of agent:human-bot.',
    });
    const ttl = Date.parse(state.approvalRequest.expiresAt) - Date.parse(state.approvalRequest.requestedAt);
    expect(ttl).toBe(15 * 60_000);
    expect(Date.parse(state.approvalRequest.requestedAt)).toBeGreaterThanOrEqual(before - 5);
    expect(await sessionEvents('agent:human-bot', 'runtime-7')).toEqual([]);
  });

  it('rung 4: a per-use tool waits for a human with the configured expiry, after its new process got a grant', async () => {
    handler = await createHandler(store, commands, { approvalTtlMs: 120_000 });
    const call = await seedAccepted(commands, store, { actor: 'agent:pay-bot', tool: 'charge_payment' });
    expect(await handler.handle(call, delivered)).toMatchObject({
      rung: 'per_use_approval',
      grantRecorded: true,
      appended: ['ApprovalRequested'],
    });
    const state = await stateOf(call);
    if (state.status !== 'awaiting_approval') throw new Error(`expected awaiting_approval, got ${state.status}`);
    expect(Date.parse(state.approvalRequest.expiresAt) - Date.parse(state.approvalRequest.requestedAt)).toBe(120_000);
  });

  it('rung 4 follows the contract as configured now: accepted as approval none, configured per_use, it waits for a human', async () => {
    const call = await seedAccepted(commands, store, { actor: 'agent:pay-bot', tool: 'charge_payment', approval: 'none' });
    await handler.handle(call, delivered);
    expect((await stateOf(call)).status).toBe('awaiting_approval');
  });

  it('reads the execution, the vault and the session in one round trip, and decides on them', async () => {
    const accepted = await seedAccepted(commands, store, {
      actor: 'agent:deploy-bot',
      tool: 'get_build_status',
      agentProcess: 'proc-one-read',
    });
    const reads = recordStreamReads(store);

    expect(await handler.handle(accepted, delivered)).toMatchObject({ decided: true, appended: ['ExecutionAuthorized'] });
    expect(reads).toEqual([[accepted.stream.id, 'vault', sessionStreamId('agent:deploy-bot', 'proc-one-read')]]);
  });

  it('a redelivered ExecutionAccepted is a no-op, even after the vault was locked in between', async () => {
    const call = await seedAccepted(commands, store, { actor: 'agent:deploy-bot', tool: 'get_build_status' });
    await handler.handle(call, delivered);
    const version = (await commands.load(executionStream(call.stream.id.replace('execution-', '')))).version;
    await changeVault(commands, 'LockVault', 'ops:alice', 'incident', { causationId: 'test' });
    expect(await handler.handle(call, delivered)).toEqual({ decided: false, reason: 'execution is authorized' });
    const after = await commands.load(executionStream(call.stream.id.replace('execution-', '')));
    expect(after.version).toBe(version);
    expect(after.state.status).toBe('authorized');
  });

  it('the same event handled by two replicas at once yields one decision', async () => {
    const other = await createHandler(store, new CommandHandler(store));
    const call = await seedAccepted(commands, store, { actor: 'agent:deploy-bot', tool: 'create_deployment', agentProcess: 'dup-proc' });
    await Promise.all([handler.handle(call, delivered), other.handle(call, delivered)]);
    const types = (await eventsOf(call)).map((e) => e.type);
    expect(types).toEqual(['ExecutionAccepted', 'ExecutionAuthorized']);
    expect(await sessionEvents('agent:deploy-bot', 'dup-proc')).toHaveLength(1);
  });

  it('two replicas racing on the same new agent process append one SessionGranted; exactly one call rests on it', async () => {
    // Replica B has its own pool, as another process would.
    const poolB = new Pool({ connectionString: db.url, max: 5 });
    const lostRaces: unknown[] = [];
    const storeB = new PostgresEventStore(poolB);
    const replicaB = await createHandler(storeB, new CommandHandler(storeB), {
      log: (_level, message, fields) => message.includes('lost the race') && lostRaces.push(fields),
    });
    try {
      // Eight rounds at least, more until the replicas have collided once (load can keep them apart).
      for (let round = 0; round < 100 && (round < 8 || lostRaces.length === 0); round++) {
        const process = `race-${round}`;
        const a = await seedAccepted(commands, store, { actor: 'agent:deploy-bot', tool: 'get_build_status', agentProcess: process });
        const b = await seedAccepted(commands, store, { actor: 'agent:deploy-bot', tool: 'create_deployment', agentProcess: process });
        const outcomes = await Promise.all([handler.handle(a, delivered), replicaB.handle(b, delivered)]);
        expect(outcomes.map((o) => o.decided && o.rung)).toEqual(['authorized', 'authorized']);
        expect(await sessionEvents('agent:deploy-bot', process)).toHaveLength(1);
        const bases = await Promise.all(
          [a, b].map(async (e) => {
            const s = await stateOf(e);
            return s.status === 'authorized' ? s.progress.authorization?.basis : s.status;
          }),
        );
        expect(bases.sort()).toEqual(['policy', 'session_grant']);
      }
    } finally {
      await poolB.end();
    }
    // Not a timing assertion on every round: across the rounds, the two replicas do collide.
    expect(lostRaces.length).toBeGreaterThan(0);
  });

  it('a grant that lost the race on the session stream reloads and appends no second grant', async () => {
    const session = sessionStream('agent:deploy-bot', 'p');
    const grant = {
      actor: 'agent:deploy-bot',
      agentProcess: 'p',
      basis: 'automatic' as const,
      grantedBy: 'svc:authorization',
      policyVersion: 'v',
      grantedAt: new Date().toISOString(),
    };
    const cause = { correlationId: freshExecutionId(), causationId: 'test' };
    const grantAsIfEmpty = () =>
      commands.handle(session, (_s, now) => ({ type: 'GrantSession', data: grant, metadata: { now } }), cause, {
        known: emptyStream(session),
      });
    expect((await grantAsIfEmpty()).appended).toHaveLength(1);
    expect((await grantAsIfEmpty()).appended).toHaveLength(0);
    expect((await loadStream(store, session)).version).toBe(1);
  });

  it('decides inside a span that is a child of the execution trace; appended events carry that trace', async () => {
    const call = await seedAccepted(
      commands,
      store,
      { actor: 'agent:pay-bot', tool: 'charge_payment', agentProcess: 'traced' },
      TRACEPARENT,
    );
    await handler.handle(call, delivered);
    const [, requested] = await eventsOf(call);
    const traceId = TRACEPARENT.split('-')[1];
    expect(requested?.metadata.traceparent?.split('-')[1]).toBe(traceId);
    expect(requested?.metadata.traceparent).not.toBe(TRACEPARENT);
    expect(requested?.metadata).toMatchObject({ causationId: call.metadata.eventId, actor: 'svc:authorization' });
    const [grant] = await sessionEvents('agent:pay-bot', 'traced');
    expect(grant?.metadata.traceparent).toBe(requested?.metadata.traceparent);
  });
});
