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
} from '@onceport/contracts';
import { recordedHistories } from '@onceport/contracts/testing';
import { type ExecutionCommand, type KnownExecutionState, foldEvents, retryCandidateOf } from '@onceport/domain';
import type { JsonObject, StoredEvent } from '@onceport/event-store';
import { ExecutionRepository } from '@onceport/runtime';
import { buildAnswer } from './answer/build-answer';
import { ExecutionNotFoundError } from './call-tool/call-tool.errors';
import { IdempotencyKeys } from './rest/idempotency-keys';
import { type IntakeHarness, startIntakeHarness } from './testing/intake-harness';

const INTAKE_WRITES = ['ExecutionAccepted', 'RetryAttached', 'ResultDelivered', 'IntentClaimed', 'IdempotencyKeyBound'];

/** Event types no recorded history holds yet, produced by the current decider after a recorded prefix. */
const DECIDED: Record<string, { from: string; prefix: number; at: 'later' | 'far_future'; command: (events: readonly ExecutionEventEnvelope[], now: Date) => ExecutionCommand }> = {
  ApprovalRejected: {
    from: 'awaiting-approval',
    prefix: 2,
    at: 'later',
    command: (events, now) => ({ type: 'RejectApproval', data: { approvalId: approvalIdOf(events), approver: 'ops:alice', reason: 'not this quarter' }, metadata: { now } }),
  },
  ExecutionReverted: {
    from: 'happy-path',
    prefix: Number.POSITIVE_INFINITY,
    at: 'later',
    command: (_events, now) => ({ type: 'RevertExecution', data: { by: 'ops:alice', reason: 'invoiced the wrong customer' }, metadata: { now } }),
  },
  CorrelationExpired: {
    from: 'awaiting-approval',
    prefix: 2,
    at: 'far_future',
    command: (_events, now) => ({ type: 'ExpireCorrelation', data: {}, metadata: { now } }),
  },
};

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
    // A REST call with an Idempotency-Key, bound between accepting and answering, as the controller does.
    const keys = new IdempotencyKeys(h.runtime.store);
    const rest = h.request({
      arguments: { ...deploy, project: 'contract-rest' },
      intentScope: 'run:contract',
      correlation: { transport: 'rest', jsonRpcId: null, sessionId: null, requestId: randomUUID() },
      clientIdempotencyKey: 'idem-contract-1',
      agentProcess: null,
    });
    const digest = IdempotencyKeys.digest({ tool: rest.tool, arguments: rest.arguments, intent_scope: rest.intentScope });
    const restOutcome = await h.callTool.start(rest, async (executionId) => {
      expect(await keys.bind(rest.actor, 'idem-contract-1', { executionId, requestDigest: digest })).toBe(true);
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
      expect.arrayContaining([expect.objectContaining({ transport: 'mcp', replay: true }), expect.objectContaining({ transport: 'rest', replay: false }), expect.objectContaining({ transport: 'rest', replay: true })]),
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

  it('covers every execution event type: recorded, or (until recorded) decided by the current domain below', () => {
    const recorded = new Set<string>(histories.flatMap(({ events }) => events.map((e) => e.type)));
    const covered = [...recorded, ...Object.keys(DECIDED)];
    expect([...new Set(covered)].sort()).toEqual([...EXECUTION_EVENT_TYPES].sort());
    // A type recorded since is taken out of DECIDED: a recording beats a decision.
    expect(Object.keys(DECIDED).filter((type) => recorded.has(type))).toEqual([]);
  });

  it.each(histories.map((h) => [h.name, h] as const))('%s: after every event, status and buildAnswer answer with the folded state', async (_name, { events }) => {
    const accepted = events[0];
    if (accepted?.type !== 'ExecutionAccepted') throw new Error('history without ExecutionAccepted');
    const { executionId, actor, tool } = accepted.data;
    for (const [i, event] of events.entries()) {
      await h.runtime.store.append(executionStreamId(executionId), [toStored(event)], { expectedVersion: i });
      await expectAnswers(h, events.slice(0, i + 1), { executionId, actor, tool });
    }
    await expect(h.query.status(executionId, 'agent:someone-else')).rejects.toBeInstanceOf(ExecutionNotFoundError);
  });

  it.each(Object.entries(DECIDED))('%s (not yet in a recorded history): decided after a recorded prefix, and answered from', async (type, decided) => {
    const source = histories.find((x) => x.name === decided.from);
    if (!source) throw new Error(`no recorded history ${decided.from}`);
    const { executionId, events } = relabel(source.events.slice(0, decided.prefix));
    await h.runtime.store.append(executionStreamId(executionId), events.map(toStored), { expectedVersion: 0 });
    const last = events.at(-1)?.metadata.occurredAt ?? '';
    const clock = new Date(decided.at === 'later' ? Date.parse(last) + 60_000 : Date.parse('2100-01-01T00:00:00.000Z'));
    const handled = await new ExecutionRepository(h.runtime.store, () => clock).handle(executionId, (loaded, now) => decided.command(loaded.events, now), { causationId: 'contract-test' });
    expect(handled.appended.map((e) => e.type)).toContain(type);
    const accepted = events[0];
    if (accepted?.type !== 'ExecutionAccepted') throw new Error('history without ExecutionAccepted');
    await expectAnswers(h, [...events, ...handled.appended], { executionId, actor: accepted.data.actor, tool: accepted.data.tool });
  });
});

async function expectAnswers(h: IntakeHarness, events: readonly ExecutionEventEnvelope[], expected: { executionId: string; actor: string; tool: string }): Promise<void> {
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
  const fresh = await buildAnswer(state, h.runtime.results, { attached: false });
  expect(fresh).toMatchObject({ execution_id: expected.executionId, state: state.status, attached: false, replay: false });
  expect(fresh.next_step).toMatch(/\S/);
}

function approvalIdOf(events: readonly ExecutionEventEnvelope[]): string {
  for (const event of events) if (event.type === 'ApprovalRequested') return event.data.approvalId;
  throw new Error('no ApprovalRequested');
}

/** A copy of a history under a fresh execution id and fresh event ids, so it can live next to the original. */
function relabel(events: readonly ExecutionEventEnvelope[]): { executionId: string; events: ExecutionEventEnvelope[] } {
  const original = events[0]?.data.executionId ?? '';
  const executionId = `${original.slice(0, 14)}${randomUUID().replace(/-/g, '').toUpperCase().replace(/[ILOU]/g, 'X').slice(0, 16)}`;
  let text = JSON.stringify(events).split(original).join(executionId);
  for (const event of events) text = text.split(event.metadata.eventId).join(randomUUID());
  return { executionId, events: (JSON.parse(text) as unknown[]).map((e) => parseEvent(e)) };
}

function toStored(event: ExecutionEventEnvelope) {
  return { eventId: event.metadata.eventId, type: event.type, schemaVersion: event.schemaVersion, data: event.data as unknown as JsonObject, metadata: event.metadata as unknown as JsonObject };
}

function envelopeOf(event: StoredEvent): unknown {
  return { type: event.type, schemaVersion: event.schemaVersion, data: event.data, metadata: { ...event.metadata, eventId: event.eventId } };
}

function expectDefinition(event: StoredEvent, definition: { type: string; schemaVersion: number; data: { parse(data: unknown): unknown } }): void {
  expect(event.type).toBe(definition.type);
  expect(event.schemaVersion).toBe(definition.schemaVersion);
  expect(() => definition.data.parse(event.data)).not.toThrow();
  expect(() => EventMetadata.parse({ ...event.metadata, eventId: event.eventId })).not.toThrow();
}
