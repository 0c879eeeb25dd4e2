import { executionStreamId } from '@onceport/contracts';
import { CommandHandler, PostgresEventStore, type StoredEvent, executionStream } from '@onceport/event-store';
import { recordStreamReads } from '@onceport/event-store/testing';
import { type IntakeHarness, startIntakeHarness } from '../testing/intake-harness';
import { IdempotencyKeys } from '../rest/idempotency-keys';
import { IdempotencyKeyTakenError, InvalidArgumentsError, UnknownToolError } from './call-tool.errors';

/**
 * Matching a retry (DESIGN.md §5) against a real store, with no authorization or dispatcher
 * running: every execution stays `accepted` unless a test moves it on.
 */
describe('CallToolService (real PostgreSQL, in-process delivery, nothing consuming)', () => {
  let h: IntakeHarness;

  beforeAll(async () => {
    h = await startIntakeHarness();
  });
  afterAll(() => h?.close());
  afterEach(() => expect(h.watcherErrors).toEqual([]));

  const deploy = (project: string, extra: Record<string, unknown> = {}) => ({
    project,
    environment: 'staging',
    version: '1.0.0',
    notes: 'first draft',
    ...extra,
  });
  const streamOf = (executionId: string): Promise<StoredEvent[]> => h.ports.store.readStream(executionStreamId(executionId));
  const typesOf = async (executionId: string): Promise<string[]> => (await streamOf(executionId)).map((e) => e.type);
  const accepted = async (): Promise<number> => (await h.allEvents()).filter((e) => e.type === 'ExecutionAccepted').length;

  it('a first call creates an execution: accepted, its intent claimed, generated arguments kept out of the record', async () => {
    const { answer, created } = await h.callTool.call(h.request({ arguments: deploy('first') }));
    expect(created).toBe(true);
    expect(answer).toMatchObject({
      tool: 'create_deployment',
      state: 'accepted',
      attached: false,
      replay: false,
      result: null,
      denial: null,
      target_status: null,
    });
    expect(answer.execution_id).toMatch(/^exe_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(answer.next_step).toMatch(/Still in progress; do not call again/);
    const [event] = await streamOf(answer.execution_id);
    expect(event?.type).toBe('ExecutionAccepted');
    expect(event?.data).toMatchObject({
      actor: 'agent:a',
      intentScope: 'default:agent:a',
      tool: 'create_deployment',
      agentProcess: 'mcp-sess-test',
      effectClass: 'idempotent',
    });
    expect(String(event?.data['fingerprint'])).toMatch(/^hmac-sha256:k1:[0-9a-f]{64}$/);
    expect(event?.data['record']).toMatchObject({ arguments: { project: 'first', environment: 'staging', version: '1.0.0' } });
    expect(JSON.stringify(event?.data['record'])).not.toContain('first draft');
    const claims = (await h.allEvents()).filter((e) => e.type === 'IntentClaimed' && e.data['executionId'] === answer.execution_id);
    expect(claims).toHaveLength(1);
    expect(claims[0]?.streamId).toMatch(/^intent-[0-9a-f]{64}$/);
  });

  it('a second identical call attaches: same execution id, RetryAttached with its own correlation, no second acceptance', async () => {
    const first = await h.callTool.call(h.request({ arguments: deploy('second') }));
    const retry = h.request({
      arguments: deploy('second'),
      agentProcess: 'mcp-sess-other',
      correlation: { transport: 'mcp', jsonRpcId: 'retry-1', sessionId: 'mcp-sess-other', requestId: null },
    });
    const second = await h.callTool.call(retry);
    expect(second.created).toBe(false);
    expect(second.answer).toMatchObject({ execution_id: first.answer.execution_id, state: 'accepted', attached: true, replay: false });
    const events = await streamOf(first.answer.execution_id);
    expect(events.map((e) => e.type)).toEqual(['ExecutionAccepted', 'RetryAttached']);
    expect(events[1]?.data).toMatchObject({
      correlation: { transport: 'mcp', jsonRpcId: 'retry-1', sessionId: 'mcp-sess-other' },
      agentProcess: 'mcp-sess-other',
    });
  });

  describe('with a REST Idempotency-Key', () => {
    const rest = (project: string, key: string) =>
      h.request({
        arguments: deploy(project),
        agentProcess: null,
        clientIdempotencyKey: key,
        correlation: { transport: 'rest', jsonRpcId: null, sessionId: null, requestId: `${key}-${project}` },
      });
    const keyFor = (keys: IdempotencyKeys, key: string, project: string) =>
      keys.toBind('agent:a', key, keys.digest({ tool: 'create_deployment', arguments: deploy(project), intent_scope: null }));

    it('a new execution binds the key in its acceptance’s commit; a new intent under the bound key accepts nothing', async () => {
      const keys = new IdempotencyKeys(h.ports.commands, h.deps.keyring);
      const first = await h.callTool.start(rest('keyed-one', 'k-bound'), keyFor(keys, 'k-bound', 'keyed-one'));
      expect(await keys.lookup('agent:a', 'k-bound')).toMatchObject({ executionId: first.answer.execution_id });
      const before = await accepted();
      // As a racer would, after its lookup found the key free: the first try guesses it unbound.
      const other = h.callTool.start(rest('keyed-two', 'k-bound'), keyFor(keys, 'k-bound', 'keyed-two'));
      await expect(other).rejects.toBeInstanceOf(IdempotencyKeyTakenError);
      await expect(other).rejects.toMatchObject({ binding: { executionId: first.answer.execution_id } });
      expect(await accepted()).toBe(before);
    });

    it('a call that would attach where another request bound its key meanwhile records nothing on the execution it matched', async () => {
      const keys = new IdempotencyKeys(h.ports.commands, h.deps.keyring);
      const unkeyed = await h.callTool.call(h.request({ arguments: deploy('keyed-attach') }));
      const bound = await h.callTool.start(rest('keyed-elsewhere', 'k-taken'), keyFor(keys, 'k-taken', 'keyed-elsewhere'));
      const retry = h.callTool.start(rest('keyed-attach', 'k-taken'), keyFor(keys, 'k-taken', 'keyed-attach'));
      await expect(retry).rejects.toMatchObject({ binding: { executionId: bound.answer.execution_id } });
      expect(await typesOf(unkeyed.answer.execution_id)).toEqual(['ExecutionAccepted']);
    });

    it('a call that attaches binds its key to the execution it attached to', async () => {
      const keys = new IdempotencyKeys(h.ports.commands, h.deps.keyring);
      const unkeyed = await h.callTool.call(h.request({ arguments: deploy('keyed-attached') }));
      const keyed = await h.callTool.start(rest('keyed-attached', 'k-attached'), keyFor(keys, 'k-attached', 'keyed-attached'));
      expect(keyed).toMatchObject({ created: false, answer: { execution_id: unkeyed.answer.execution_id, attached: true } });
      expect(await keys.lookup('agent:a', 'k-attached')).toMatchObject({ executionId: unkeyed.answer.execution_id });
      expect(await typesOf(unkeyed.answer.execution_id)).toEqual(['ExecutionAccepted', 'RetryAttached']);
    });
  });

  it('20 concurrent identical calls: 1 ExecutionAccepted, 19 RetryAttached, every caller told the same id', async () => {
    const before = await accepted();
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => h.callTool.call(h.request({ arguments: deploy('herd') }))));
    const ids = new Set(outcomes.map((o) => o.answer.execution_id));
    expect(ids.size).toBe(1);
    expect(outcomes.filter((o) => o.created)).toHaveLength(1);
    expect(await accepted()).toBe(before + 1);
    const types = await typesOf([...ids][0] ?? '');
    expect(types.filter((t) => t === 'ExecutionAccepted')).toHaveLength(1);
    expect(types.filter((t) => t === 'RetryAttached')).toHaveLength(19);
  });

  it('a new intent is claimed without reading its claims first; the next identical call here reads them at once, one elsewhere after a failed guess', async () => {
    const reads = recordStreamReads(h.ports.store);
    const intentReads = (): number => reads.filter((streams) => streams.some((id) => id.startsWith('intent-'))).length;
    const claimTries: number[] = [];
    const appendTogether = h.ports.store.appendTogether.bind(h.ports.store);
    h.ports.store.appendTogether = (appends, onlyIf) => {
      if (appends.some((append) => append.streamId.startsWith('intent-'))) claimTries.push(appends.length);
      return appendTogether(appends, onlyIf);
    };
    try {
      const first = await h.callTool.call(h.request({ arguments: deploy('unread-claims') }));
      expect(first.created).toBe(true);
      expect([intentReads(), claimTries.length]).toEqual([0, 1]);
      // This process saw the intent claimed: the next identical call reads the claims, no claim attempt.
      const second = await h.callTool.call(h.request({ arguments: deploy('unread-claims') }));
      expect(second).toMatchObject({ created: false, answer: { execution_id: first.answer.execution_id, attached: true } });
      expect([intentReads(), claimTries.length]).toEqual([1, 1]);
      // Another replica has not: it guesses, meets the claim's version and reads on its next try.
      const third = await h.callToolService(h.deps, h.watcher).call(h.request({ arguments: deploy('unread-claims') }));
      expect(third).toMatchObject({ created: false, answer: { execution_id: first.answer.execution_id, attached: true } });
      expect([intentReads(), claimTries.length]).toEqual([2, 2]);
    } finally {
      h.ports.store.appendTogether = appendTogether;
    }
  });

  it('two intake replicas racing one new intent, each guessing it unclaimed: 1 ExecutionAccepted, the losers attach', async () => {
    const replica = h.callToolService(h.deps, h.watcher);
    const before = await accepted();
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? h.callTool : replica).call(h.request({ arguments: deploy('two-replicas') }))),
    );
    const ids = new Set(outcomes.map((o) => o.answer.execution_id));
    expect(ids.size).toBe(1);
    expect(outcomes.filter((o) => o.created)).toHaveLength(1);
    expect(await accepted()).toBe(before + 1);
    expect((await typesOf([...ids][0] ?? '')).filter((t) => t === 'RetryAttached')).toHaveLength(7);
  });

  it('a re-drafted generated argument attaches to the same execution', async () => {
    const first = await h.callTool.call(h.request({ arguments: deploy('redraft') }));
    const redrafted = await h.callTool.call(h.request({ arguments: deploy('redraft', { notes: 'a completely rewritten release note' }) }));
    const withoutNotes = await h.callTool.call(h.request({ arguments: { project: 'redraft', environment: 'staging', version: '1.0.0' } }));
    expect(redrafted.answer).toMatchObject({ execution_id: first.answer.execution_id, attached: true });
    expect(withoutNotes.answer).toMatchObject({ execution_id: first.answer.execution_id, attached: true });
  });

  it('another identity argument, another actor or another intent scope is a new execution (and each attaches its own retries)', async () => {
    const original = await h.callTool.call(h.request({ arguments: deploy('scoped') }));
    const otherVersion = await h.callTool.call(h.request({ arguments: deploy('scoped', { version: '1.0.1' }) }));
    const otherActor = await h.callTool.call(h.request({ arguments: deploy('scoped'), actor: 'agent:b' }));
    const otherScope = await h.callTool.call(h.request({ arguments: deploy('scoped'), intentScope: 'run:another' }));
    const ids = [original, otherVersion, otherActor, otherScope].map((o) => o.answer.execution_id);
    expect(new Set(ids).size).toBe(4);
    expect([otherVersion, otherActor, otherScope].every((o) => o.created && !o.answer.attached)).toBe(true);
    expect((await streamOf(otherScope.answer.execution_id))[0]?.data).toMatchObject({ intentScope: 'run:another' });

    const actorRetry = await h.callTool.call(h.request({ arguments: deploy('scoped'), actor: 'agent:b' }));
    const scopeRetry = await h.callTool.call(h.request({ arguments: deploy('scoped'), intentScope: 'run:another' }));
    expect(actorRetry.answer).toMatchObject({ execution_id: otherActor.answer.execution_id, attached: true });
    expect(scopeRetry.answer).toMatchObject({ execution_id: otherScope.answer.execution_id, attached: true });
  });

  it('an unknown tool or arguments that violate the contract throw the typed errors and append nothing', async () => {
    const before = (await h.allEvents()).length;
    const unknown = Promise.resolve().then(() => h.callTool.call(h.request({ tool: 'launch_rocket', arguments: {} })));
    await expect(unknown).rejects.toBeInstanceOf(UnknownToolError);
    await expect(unknown).rejects.toMatchObject({
      code: 'unknown_tool',
      tool: 'launch_rocket',
      message: expect.stringContaining('create_deployment'),
    });

    const invalid = Promise.resolve().then(() => h.callTool.call(h.request({ arguments: { project: 'Bad Name!', environment: 'qa' } })));
    await expect(invalid).rejects.toBeInstanceOf(InvalidArgumentsError);
    const error = (await invalid.catch((e: unknown) => e)) as InvalidArgumentsError;
    expect(error.code).toBe('invalid_arguments');
    const paths = error.issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['$.project', '$.environment']));
    expect(error.message).toMatch(/^invalid arguments for create_deployment: /);

    const notAnObject = Promise.resolve().then(() => h.callTool.call(h.request({ arguments: ['web'] })));
    await expect(notAnObject).rejects.toBeInstanceOf(InvalidArgumentsError);
    expect((await h.allEvents()).length).toBe(before);
  });

  it('awaitAnswerable returns the state the execution is in when the wait is over', async () => {
    const started = Date.now();
    const { answer } = await h.callTool.call(h.request({ arguments: deploy('deadline'), waitMs: 400 }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(answer.state).toBe('accepted');
    expect(answer.next_step).toMatch(/Still in progress/);

    const waited = Date.now();
    const state = await h.callTool.awaitAnswerable(answer.execution_id, 250);
    expect(Date.now() - waited).toBeGreaterThanOrEqual(240);
    expect(state.status).toBe('accepted');
    expect(state.facts.executionId).toBe(answer.execution_id);
  });

  it('a waiting call is woken by an answer-changing event and answers with it, long before its deadline', async () => {
    const { answer } = await h.callTool.call(h.request({ arguments: deploy('woken') }));
    const started = Date.now();
    const waiting = h.callTool.call(h.request({ arguments: deploy('woken'), waitMs: 20_000 }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await h.ports.commands.handle(
      executionStream(answer.execution_id),
      (_loaded, now) => ({ type: 'DenyExecution', data: { code: 'policy', reason: 'not during the freeze' }, metadata: { now } }),
      { causationId: 'test' },
    );
    const woken = await waiting;
    expect(Date.now() - started).toBeLessThan(15_000); // woken, not answered at its 20 s deadline
    expect(woken.answer).toMatchObject({
      execution_id: answer.execution_id,
      state: 'denied',
      attached: true,
      denial: { code: 'policy', reason: 'not during the freeze' },
    });
    expect(woken.answer.next_step).toMatch(/^Denied: not during the freeze\./);
  });

  it('a call that created its execution never reads it: it knows it is accepted, and the change feed brings the rest', async () => {
    const reads = recordStreamReads(h.ports.store);
    const calling = h.callTool.call(h.request({ arguments: deploy('read-once'), waitMs: 20_000 }));
    const acceptedHere = async (): Promise<string | undefined> =>
      (await h.allEvents()).find(
        (e) =>
          e.type === 'ExecutionAccepted' && (e.data['record'] as { arguments?: { project?: string } }).arguments?.project === 'read-once',
      )?.data['executionId'] as string | undefined;
    let executionId = await acceptedHere();
    for (const deadline = Date.now() + 10_000; !executionId && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      executionId = await acceptedHere();
    }
    if (!executionId) throw new Error('the call accepted nothing within 10 s');
    // Denied through a store of its own: every read counted is the waiting call's.
    await new CommandHandler(new PostgresEventStore(h.ports.pool)).handle(
      executionStream(executionId),
      (_loaded, now) => ({ type: 'DenyExecution', data: { code: 'policy', reason: 'read once' }, metadata: { now } }),
      { causationId: 'test' },
    );
    const { answer } = await calling;

    expect(answer).toMatchObject({ execution_id: executionId, state: 'denied', denial: { reason: 'read once' } });
    expect(reads.filter((streams) => streams.includes(executionStreamId(executionId)))).toHaveLength(0);
  });

  it('a call answered before its deadline leaves no waiter behind in the watcher', async () => {
    const waiters = (h.watcher as unknown as { waiters: Map<string, Set<unknown>> }).waiters;
    const { answer } = await h.callTool.call(h.request({ arguments: deploy('no-leak') }));
    const waiting = h.callTool.call(h.request({ arguments: deploy('no-leak'), waitMs: 30_000 }));
    // The retry reads claims and candidates and records its attach before it waits: poll for it.
    for (let tries = 0; tries < 1_000 && waiters.get(answer.execution_id)?.size !== 1; tries++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(waiters.get(answer.execution_id)?.size).toBe(1);
    await h.ports.commands.handle(
      executionStream(answer.execution_id),
      (_loaded, now) => ({ type: 'DenyExecution', data: { code: 'policy', reason: 'no' }, metadata: { now } }),
      { causationId: 'test' },
    );
    await waiting;
    expect(waiters.has(answer.execution_id)).toBe(false);
  });

  it('a completed but undelivered execution answers a retry with the stored result, marked as a replay; delivered, it no longer matches', async () => {
    const first = await h.callTool.call(h.request({ arguments: deploy('ledger') }));
    await h.complete(first.answer.execution_id, { status: 201, body: { id: 'dep_7', project: 'ledger' } });
    const retry = await h.callTool.call(h.request({ arguments: deploy('ledger') }));
    expect(retry.answer).toMatchObject({
      execution_id: first.answer.execution_id,
      state: 'completed_result_not_delivered',
      attached: true,
      replay: true,
      target_status: 201,
      result: { content_type: 'application/json', body: { id: 'dep_7', project: 'ledger' } },
    });
    expect(retry.answer.next_step).toMatch(/nothing was sent again/);

    await h.delivery.delivered(retry.answer, 'mcp', h.request().correlation);
    // create_deployment keeps no ledger: once delivered, the same call is a new, deliberate intent.
    const later = await h.callTool.call(h.request({ arguments: deploy('ledger') }));
    expect(later.created).toBe(true);
    expect(later.answer.execution_id).not.toBe(first.answer.execution_id);
  });

  it('a tool with a ledger retention answers a later identical call from the ledger, even after delivery', async () => {
    const email = (body: string) => ({ recipient: 'Ana@Example.com', campaign_id: 'spring', subject: 'Hello', body });
    const first = await h.callTool.call(h.request({ tool: 'send_email', arguments: email('Dear Ana') }));
    await h.complete(first.answer.execution_id, { status: 202, body: { id: 'msg_1' } });
    const finished = await h.callTool.awaitAnswerable(first.answer.execution_id, 0);
    expect(finished.status).toBe('completed_result_not_delivered');
    await h.delivery.delivered({ ...first.answer, state: finished.status, replay: false }, 'mcp', h.request().correlation);
    const hit = await h.callTool.call(h.request({ tool: 'send_email', arguments: email('Hi Ana, rewritten'), actor: 'agent:a' }));
    expect(hit.answer).toMatchObject({
      execution_id: first.answer.execution_id,
      state: 'completed',
      replay: true,
      attached: true,
      result: { body: { id: 'msg_1' } },
    });
  });
});
