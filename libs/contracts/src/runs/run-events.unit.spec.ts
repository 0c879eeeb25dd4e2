import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEvent } from '../events/create-event';
import { ExecutionAcceptedEvent } from '../events/execution-accepted.event';
import { parseEvent, safeParseEvent } from '../events/execution-event-registry';
import { metadata } from '../events/testing/samples';
import { parseRunEvent, safeParseRunEvent } from './run-event';
import { RunAttemptStartedEvent } from './run-attempt-started.event';
import { RunId, RunTrigger, runIntentScope, runStreamId } from './run-stream';

const history = JSON.parse(readFileSync(join(__dirname, '../../test/fixtures/histories/completed-undelivered-retry.json'), 'utf8')) as {
  type: string;
  schemaVersion: number;
  data: Record<string, unknown>;
}[];
const acceptedV1 = history.find((event) => event.type === 'ExecutionAccepted')!;
const attachedV1 = history.find((event) => event.type === 'RetryAttached')!;

describe('run events', () => {
  const opened = {
    type: 'RunOpened',
    schemaVersion: 1,
    data: { runId: 'campaign-2026-12', actor: 'agent:mailer', trigger: 'ticket:OPS-812', openedAt: '2026-12-01T10:00:00.000Z' },
    metadata: { ...metadata, correlationId: runStreamId('campaign-2026-12') },
  };

  it('parse at their current version, under onceport.run', () => {
    expect(parseRunEvent(JSON.parse(JSON.stringify(opened)))).toEqual(opened);
    expect(RunAttemptStartedEvent.subject).toBe('onceport.run.run-attempt-started.v1');
  });

  it('bound run ids and triggers to what is safe in a stream id, a path and an intent scope', () => {
    expect(RunId.safeParse('run_01JNQ7ZK3M8V2C4D6F8G0H2J4K').success).toBe(true);
    for (const bad of ['', '../etc', 'a b', 'x'.repeat(101), '-leading']) expect(RunId.safeParse(bad).success).toBe(false);
    expect(RunTrigger.safeParse('webhook:gh/delivery#91').success).toBe(true);
    for (const bad of ['', 'with space', 'x'.repeat(191), 'tab\there']) expect(RunTrigger.safeParse(bad).success).toBe(false);
    expect(runIntentScope('x'.repeat(190)).length).toBeLessThanOrEqual(200);
  });

  it('refuse a forced replay without a reason, naming the path', () => {
    const started = {
      type: 'RunAttemptStarted',
      schemaVersion: 1,
      data: {
        runId: 'campaign-2026-12',
        attempt: 2,
        requestedBy: 'admin:ops',
        startedAt: '2026-12-01T11:00:00.000Z',
        forced: { by: 'admin:ops', reason: '  ', unsafe: [], unsafeCount: 0 },
      },
      metadata: opened.metadata,
    };
    const result = safeParseRunEvent(started);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error.issues.map((issue) => issue.path)).toEqual(['data.forced.reason']);
  });
});

describe('execution events written before runs', () => {
  it('ExecutionAccepted v1 reads as v2 with no run and no repeated execution', () => {
    expect(acceptedV1.schemaVersion).toBe(1);
    const event = parseEvent(acceptedV1);
    expect(event.schemaVersion).toBe(2);
    expect(event.data).toMatchObject({ ...acceptedV1.data, run: null, repeats: null });
  });

  it('RetryAttached v1 reads as v2 with no run', () => {
    const event = parseEvent(attachedV1);
    expect(event.schemaVersion).toBe(2);
    expect(event.data).toMatchObject({ run: null });
  });

  it('a run call carries the intent scope its trigger derives; any other is refused', () => {
    const data = acceptedV1.data as Record<string, unknown> & { record: Record<string, unknown> };
    const run = { runId: 'campaign-2026-12', attempt: 2, trigger: 'ticket:OPS-812' };
    const scope = runIntentScope(run.trigger);
    const inRun = { ...data, intentScope: scope, record: { ...data.record, intent_scope: scope }, run };
    expect(
      createEvent(ExecutionAcceptedEvent, inRun as never, { ...metadata, correlationId: String(data['executionId']) }).schemaVersion,
    ).toBe(2);
    const wrong = safeParseEvent({ ...acceptedV1, schemaVersion: 2, data: { ...data, run } });
    expect(wrong.success).toBe(false);
    if (!wrong.success) expect(wrong.error.issues.map((issue) => issue.path)).toContain('data.intentScope');
  });
});
