// Consumer-driven contract of intake (CONVENTIONS.md, "recorded histories as fixtures"): everything it
// writes is readable by the contracts' own parsers (its consumers read with those), and it can still
// read — and answer agents from — every execution history ever recorded.
import { randomUUID } from 'node:crypto';
import {
  EXECUTION_EVENT_TYPES,
  EventMetadata,
  type ExecutionEventEnvelope,
  IdempotencyKeyBoundEvent,
  IntentClaimedEvent,
  executionEventRegistry,
  executionIdOfStream,
  executionStreamId,
  parseEvent,
  runEventRegistry,
} from '@onceport/contracts';
import { type RecordedEvent, everyVersionOf, recordedHistories, recordedStreams, unrecorded } from '@onceport/contracts/testing';
import { type KnownExecutionState, foldEvents, retryCandidateOf } from '@onceport/domain';
import { type JsonObject, type StoredEvent, intentStreamWithId, loadStream } from '@onceport/event-store';
import { buildAnswer } from './answer/build-answer';
import { ExecutionNotFoundError } from './call-tool/call-tool.errors';
import { IdempotencyKeys } from './rest/idempotency-keys';
import { type IntakeHarness, startIntakeHarness } from './testing/intake-harness';

const INTAKE_WRITES = ['ExecutionAccepted', 'RetryAttached', 'ResultDelivered', 'IntentClaimed', 'IdempotencyKeyBound'];

/**
 * What intake reads: every execution event (status, timeline, the wait loop and the matcher fold
 * execution streams), the intent streams (claims) and the Idempotency-Key streams.
 */
const CONSUMED = [
  ...everyVersionOf(executionEventRegistry.types, (type) => executionEventRegistry.currentVersion(type)),
  ...everyVersionOf(runEventRegistry.types, (type) => runEventRegistry.currentVersion(type)),
  ...[IntentClaimedEvent, IdempotencyKeyBoundEvent].flatMap((definition) =>
    everyVersionOf([definition.type], () => definition.schemaVersion),
  ),
];

describe('intake writes only what the contracts parse (real PostgreSQL, real services)', () => {
  let h: IntakeHarness;

  beforeAll(async () => {
    h = await startIntakeHarness();
  });
  afterAll(() => h?.close());

  it('ExecutionAccepted, RetryAttached and ResultDelivered parse as execution events; IntentClaimed and IdempotencyKeyBound by their schemas', async () => {
    const deploy = { project: 'contract', environment: 'staging', version: '3.1.0', notes: 'release notes' };
    // A new execution, then a retry attaching to it (MCP).
    const first = await h.callTool.call(h.request({ arguments: deploy }));
    await h.callTool.call(h.request({ arguments: deploy }));
    // A REST call with an Idempotency-Key, bound in its acceptance's commit, as the controller does.
    const keys = new IdempotencyKeys(h.ports.commands, h.deps.keyring);
    const rest = h.request({
      arguments: { ...deploy, project: 'contract-rest' },
      intentScope: 'run:contract',
      correlation: { transport: 'rest', jsonRpcId: null, sessionId: null, requestId: randomUUID() },
      clientIdempotencyKey: 'idem-contract-1',
      agentProcess: null,
    });
    const digest = keys.digest({ tool: rest.tool, arguments: rest.arguments, intent_scope: rest.intentScope });
    const restOutcome = await h.callTool.start(rest, keys.toBind(rest.actor, 'idem-contract-1', digest));
    expect(await keys.lookup(rest.actor, 'idem-contract-1')).toEqual({
      executionId: restOutcome.answer.execution_id,
      requestDigest: digest,
    });
    // Both executions complete; their answers are delivered, first and as a replay.
    await h.complete(first.answer.execution_id);
    await h.complete(restOutcome.answer.execution_id);
    const delivered = await h.callTool.call(h.request({ arguments: deploy }));
    expect(delivered.answer).toMatchObject({ state: 'completed_result_not_delivered', replay: true });
    await h.delivery.delivered(delivered.answer, 'mcp', h.request().correlation);
    const answered = await h.query.status(restOutcome.answer.execution_id, rest.actor);
    await h.delivery.delivered({ ...answered.answer, replay: false }, 'rest', rest.correlation);
    await h.delivery.delivered(answered.answer, 'rest', { ...rest.correlation, requestId: randomUUID() });

    const all = await h.allEvents();
    expect([...new Set(all.map((e) => e.type))]).toEqual(expect.arrayContaining(INTAKE_WRITES));
    for (const event of all) {
      const raw = envelopeOf(event);
      if (executionIdOfStream(event.streamId) !== null) {
        const parsed = parseEvent(raw);
        expect(parsed.type).toBe(event.type);
        expect(event.schemaVersion).toBe(executionEventRegistry.currentVersion(event.type));
        expect(parsed.data.executionId).toBe(executionIdOfStream(event.streamId));
      } else if (event.streamId.startsWith('intent-')) {
        expectDefinition(event, IntentClaimedEvent);
      } else if (event.streamId.startsWith('idempotency-')) {
        expectDefinition(event, IdempotencyKeyBoundEvent);
      } else {
        throw new Error(`intake wrote to an unexpected stream: ${event.streamId}`);
      }
    }
    const deliveries = all.filter((e) => e.type === 'ResultDelivered').map((e) => e.data);
    expect(deliveries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ transport: 'mcp', replay: true }),
        expect.objectContaining({ transport: 'rest', replay: false }),
        expect.objectContaining({ transport: 'rest', replay: true }),
      ]),
    );
  });
});

describe('intake reads every recorded execution history and answers from it', () => {
  let h: IntakeHarness;

  beforeAll(async () => {
    h = await startIntakeHarness();
  });
  afterAll(() => h?.close());

  const histories = Object.entries(recordedHistories).map(([name, events]) => ({ name, events: events.map((e) => parseEvent(e)) }));

  it('has recorded histories, each one execution starting with ExecutionAccepted', () => {
    expect(histories.length).toBeGreaterThan(0);
    for (const { events } of histories) expect(events[0]?.type).toBe('ExecutionAccepted');
  });

  it('has a recorded example of every schema version of every event it consumes', () => {
    expect(unrecorded(CONSUMED)).toEqual([]);
    // Every execution event type, in an execution history it is answered from below.
    const inHistories = new Set<string>(histories.flatMap(({ events }) => events.map((e) => e.type)));
    expect(EXECUTION_EVENT_TYPES.filter((type) => !inHistories.has(type))).toEqual([]);
  });

  it.each(histories.map((h) => [h.name, h] as const))(
    '%s: after every event, status and buildAnswer answer with the folded state',
    async (_name, { events }) => {
      const accepted = events[0];
      if (accepted?.type !== 'ExecutionAccepted') throw new Error('history without ExecutionAccepted');
      const { executionId, actor, tool } = accepted.data;
      for (const [i, event] of events.entries()) {
        await h.ports.store.append(executionStreamId(executionId), [toStored(event)], { expectedVersion: i });
        await expectAnswers(h, events.slice(0, i + 1), { executionId, actor, tool });
      }
      await expect(h.query.status(executionId, 'agent:someone-else')).rejects.toBeInstanceOf(ExecutionNotFoundError);
    },
  );
});

describe('intake reads every recorded intent claim and Idempotency-Key binding', () => {
  let h: IntakeHarness;

  beforeAll(async () => {
    h = await startIntakeHarness();
  });
  afterAll(() => h?.close());

  it.each(recordedStreams('intents').map((s) => [s.name, s] as const))(
    'intent stream %s: its claims are what a new call attaches to',
    async (_name, stream) => {
      await h.ports.store.append(stream.streamId, stream.events.map(toStoredRecorded), { expectedVersion: 0 });
      // Intake reads the claim's fields itself: the recorded data must still be what the shared schema says.
      for (const event of stream.events) expectRecordedDefinition(event, IntentClaimedEvent);
      const { state: claims, version } = await loadStream(h.ports.store, intentStreamWithId(stream.streamId));
      expect(claims).toEqual(stream.events.map((e) => ({ executionId: e.data['executionId'], claimedAt: e.data['claimedAt'] })));
      expect(version).toBe(stream.events.length);
    },
  );

  it.each(recordedStreams('runs').map((s) => [s.name, s] as const))(
    'run stream %s: the run reads back with its attempts',
    async (_name, stream) => {
      const { runId } = stream.context;
      if (!runId) throw new Error(`${stream.name}: no runId recorded`);
      await h.ports.store.append(stream.streamId, stream.events.map(toStoredRecorded), { expectedVersion: 0 });
      // Looked up by run id: a change in how the stream id is derived loses every recorded run.
      const report = await h.runs.report({ kind: 'admin', id: 'ops:contract' }, runId);
      expect(report.run.attempts.map((attempt) => attempt.attempt)).toEqual(stream.events.map((_event, index) => index + 1));
      expect(report.run.trigger).toBe(stream.events[0]?.data['trigger']);
    },
  );

  it.each(recordedStreams('idempotency-keys').map((s) => [s.name, s] as const))(
    'Idempotency-Key stream %s: the key finds its recorded binding',
    async (_name, stream) => {
      const { actor, idempotencyKey } = stream.context;
      if (!actor || !idempotencyKey) throw new Error(`${stream.name}: no actor and idempotencyKey recorded`);
      await h.ports.store.append(stream.streamId, stream.events.map(toStoredRecorded), { expectedVersion: 0 });
      for (const event of stream.events) expectRecordedDefinition(event, IdempotencyKeyBoundEvent);
      const [bound] = stream.events;
      // Looked up by (actor, key): a change in how the stream id is derived loses every recorded binding.
      expect(await new IdempotencyKeys(h.ports.commands, h.deps.keyring).lookup(actor, idempotencyKey)).toEqual({
        executionId: bound?.data['executionId'],
        requestDigest: bound?.data['requestDigest'],
      });
      expect(await new IdempotencyKeys(h.ports.commands, h.deps.keyring).lookup(actor, `${idempotencyKey}-other`)).toBeNull();
    },
  );
});

async function expectAnswers(
  h: IntakeHarness,
  events: readonly ExecutionEventEnvelope[],
  expected: { executionId: string; actor: string; tool: string },
): Promise<void> {
  const folded = foldEvents(events);
  if (folded.status === 'none') throw new Error('nothing folded');
  const state: KnownExecutionState = folded;
  const { answer, timeline } = await h.query.status(expected.executionId, expected.actor);
  const where = `after ${events.map((e) => e.type).join(' → ')}`;
  expect({ where, state: answer.state }).toEqual({ where, state: state.status });
  expect(answer).toMatchObject({ execution_id: expected.executionId, tool: expected.tool, attached: true });
  expect(answer.next_step).toMatch(/\S/);
  expect(answer.denial === null).toBe(state.status !== 'denied');
  expect(timeline.map((t) => t.type)).toEqual(events.map((e) => e.type));
  // The other readers of a stream: the wait loop and the matcher.
  expect((await h.callTool.awaitAnswerable(expected.executionId, 0)).status).toBe(state.status);
  expect(() => retryCandidateOf(state)).not.toThrow();
  const fresh = await buildAnswer(state, h.ports.results, { attached: false });
  expect(fresh).toMatchObject({ execution_id: expected.executionId, state: state.status, attached: false, replay: false });
  expect(fresh.next_step).toMatch(/\S/);
}

function toStored(event: ExecutionEventEnvelope) {
  return {
    eventId: event.metadata.eventId,
    type: event.type,
    schemaVersion: event.schemaVersion,
    data: event.data as unknown as JsonObject,
    metadata: event.metadata as unknown as JsonObject,
  };
}

function toStoredRecorded(event: RecordedEvent) {
  return {
    eventId: event.metadata.eventId,
    type: event.type,
    schemaVersion: event.schemaVersion,
    data: event.data as JsonObject,
    metadata: event.metadata as JsonObject,
  };
}

/** A recorded event of a type outside the execution registry, checked against its definition now. */
function expectRecordedDefinition(
  event: RecordedEvent,
  definition: { type: string; schemaVersion: number; data: { parse(data: unknown): unknown } },
): void {
  expect({ type: event.type, schemaVersion: event.schemaVersion }).toEqual({
    type: definition.type,
    schemaVersion: definition.schemaVersion,
  });
  expect(() => definition.data.parse(event.data)).not.toThrow();
  expect(() => EventMetadata.parse(event.metadata)).not.toThrow();
}

function envelopeOf(event: StoredEvent): unknown {
  return {
    type: event.type,
    schemaVersion: event.schemaVersion,
    data: event.data,
    metadata: { ...event.metadata, eventId: event.eventId },
  };
}

function expectDefinition(
  event: StoredEvent,
  definition: { type: string; schemaVersion: number; data: { parse(data: unknown): unknown } },
): void {
  expect(event.type).toBe(definition.type);
  expect(event.schemaVersion).toBe(definition.schemaVersion);
  expect(() => definition.data.parse(event.data)).not.toThrow();
  expect(() => EventMetadata.parse({ ...event.metadata, eventId: event.eventId })).not.toThrow();
}
