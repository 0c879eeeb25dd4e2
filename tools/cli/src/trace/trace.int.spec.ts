import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { recordedHistories } from '@onceport/contracts/testing';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { runOnceport } from '../testing/run-cli-in-process';
import { seedHistory } from '../testing/seed-history';

interface TraceJson {
  state: string;
  timeline: { type: string; stream_version: number }[];
  later_executions: { execution_id: string }[];
  answers: {
    agent_processes: { answer: string; processes: string[]; sentence: string };
    first_call_authorized_and_dispatched: { authorized: boolean; dispatched: boolean; sentence: string };
    target_answered: { answer: string; target_status: number | null; sentence: string };
    delivery_failed_after_completion: { answer: string; sentence: string };
    later_calls: { attached: number; idempotency_keys: string[]; redispatch_attempts: number; new_executions: string[]; sentence: string };
  };
}

/** `onceport trace` on recorded executions seeded into a real event store (and read back from an export). */
describe('onceport trace', () => {
  let db: TestDatabase;
  let dir: string;
  let reconnect: string;
  let redispatched: string;
  const later = 'exe_01KJM6K9ZZ0000000000000001';

  beforeAll(async () => {
    db = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'onceport-trace-'));
    // The recorded reconnect-and-retry: the target answered 202, the agent's connection was gone,
    // a reconnected agent (another MCP session) called again and got the stored result as a replay.
    reconnect = await seedHistory(db.pool, recordedHistories['completed-undelivered-retry']!);
    redispatched = await seedHistory(db.pool, recordedHistories['approval-granted-redispatched']!);
  });
  afterAll(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const trace = async (...args: string[]): Promise<TraceJson> => {
    const run = await runOnceport(['trace', ...args, '--json'], { DATABASE_URL: db.url });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(run.stdout) as TraceJson;
  };

  it('answers the five questions on the recorded reconnect-and-retry execution', async () => {
    const { state, timeline, answers } = await trace(reconnect);
    expect(state).toBe('completed');
    expect(timeline.map((e) => e.type)).toEqual([
      'ExecutionAccepted',
      'ExecutionAuthorized',
      'DispatchStarted',
      'OutcomeObserved',
      'RetryAttached',
      'ResultDelivered',
    ]);
    expect(answers.agent_processes).toMatchObject({ answer: 'two', processes: ['mcp-sess-a51b', 'mcp-sess-e2f0'] });
    expect(answers.first_call_authorized_and_dispatched).toMatchObject({ authorized: true, dispatched: true });
    expect(answers.target_answered).toMatchObject({ answer: 'yes', target_status: 202 });
    expect(answers.delivery_failed_after_completion.answer).toBe('yes');
    expect(answers.delivery_failed_after_completion.sentence).toContain('as a replay');
    expect(answers.later_calls).toMatchObject({ attached: 1, idempotency_keys: [], redispatch_attempts: 0, new_executions: [] });
  });

  it('prints the timeline in event order and the answers in plain words', async () => {
    const run = await runOnceport(['trace', reconnect], { DATABASE_URL: db.url });
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    const order = [
      'ExecutionAccepted',
      'ExecutionAuthorized',
      'DispatchStarted',
      'OutcomeObserved',
      'RetryAttached',
      'ResultDelivered',
    ].map((type) => lines.findIndex((l) => l.includes(` ${type} `)));
    expect(order.every((index, i) => index > 0 && (i === 0 || index > order[i - 1]!))).toBe(true);
    expect(run.stdout).toMatch(
      /One agent process or two\?\s+Two agent processes: mcp-sess-a51b made the first call; mcp-sess-e2f0 called again/,
    );
    expect(run.stdout).toMatch(/Did the target answer\?\s+Yes: the target answered status 202/);
    expect(run.stdout).toMatch(/Did delivery fail after the target completed\?\s+Yes: .*never received the result/);
    expect(run.stdout).toMatch(/1 later call attached to this execution \(mcp-sess-e2f0 .* no idempotency key\).*no new attempt/);
  });

  it('sees a re-dispatch inside one execution, and a later call that became a new execution', async () => {
    const { answers } = await trace(redispatched);
    expect(answers.first_call_authorized_and_dispatched.sentence).toMatch(
      /^Yes: Authorized by approval .* on approval apr_01JNV4K2ZP by human:it-marco; dispatch attempt 1 started/,
    );
    expect(answers.later_calls).toMatchObject({ attached: 0, redispatch_attempts: 1, new_executions: [] });
    expect(answers.delivery_failed_after_completion.answer).toBe('no');

    // The same intent again from another process, after the first completed and was delivered: a new execution.
    const history = recordedHistories['approval-granted-redispatched']! as {
      data: Record<string, unknown>;
      metadata: Record<string, unknown>;
    }[];
    const accepted = history[0]!;
    await seedHistory(db.pool, [
      {
        ...accepted,
        data: { ...accepted.data, executionId: later, agentProcess: 'mcp-sess-0ff1' },
        metadata: { ...accepted.metadata, eventId: randomUUID(), correlationId: later },
      },
    ]);
    const again = await trace(redispatched);
    expect(again.later_executions.map((l) => l.execution_id)).toEqual([later]);
    expect(again.answers.later_calls.new_executions).toEqual([later]);
    expect(again.answers.agent_processes).toMatchObject({ answer: 'two', processes: ['mcp-sess-5e77', 'mcp-sess-0ff1'] });
  });

  it('reads the same answers from an audit export', async () => {
    const file = join(dir, 'export.jsonl');
    expect((await runOnceport(['audit', 'export', '--out', file, '--quiet'], { DATABASE_URL: db.url })).code).toBe(0);
    const fromFile = await runOnceport(['trace', reconnect, '--file', file, '--json'], {});
    expect(fromFile.code).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toEqual(await trace(reconnect));
  });

  it('exits 3 for an unknown execution, 2 for a malformed id or missing database, 5 when the database cannot be reached', async () => {
    expect(await runOnceport(['trace', 'exe_01KJM6JZYTXRSY6FCRYVKVRJ00'], { DATABASE_URL: db.url })).toMatchObject({
      code: 3,
      stderr: expect.stringMatching(/^onceport: no execution exe_01KJM6JZYTXRSY6FCRYVKVRJ00 in the event store\n$/),
    });
    expect(await runOnceport(['trace', 'not-an-id'], { DATABASE_URL: db.url })).toMatchObject({ code: 2 });
    expect(await runOnceport(['trace', reconnect], {})).toMatchObject({ code: 2, stderr: expect.stringContaining('DATABASE_URL') });
    expect(await runOnceport(['trace', reconnect, '--database-url', 'postgres://postgres@127.0.0.1:1/none'], {})).toMatchObject({
      code: 5,
    });
  });
});
