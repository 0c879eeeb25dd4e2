import { recordedHistories } from '@onceport/contracts/testing';
import { investigate } from './investigation';
import { type TracedEvent, toTracedEvent } from './traced-event';

type Recorded = { type: string; schemaVersion: number; data: { executionId: string }; metadata: { eventId: string; occurredAt: string } };

/** The recorded histories as the store would hand them back. */
function traced(name: string): { id: string; events: TracedEvent[] } {
  const history = recordedHistories[name] as Recorded[];
  const events = history.map((e, i) =>
    toTracedEvent({
      globalPosition: BigInt(i + 1),
      streamVersion: i + 1,
      recordedAt: new Date(e.metadata.occurredAt),
      eventId: e.metadata.eventId,
      type: e.type,
      schemaVersion: e.schemaVersion,
      data: e.data,
      metadata: e.metadata,
    }),
  );
  return { id: history[0]!.data.executionId, events };
}

describe('the five questions, from recorded histories', () => {
  it('a denied call and its retry: not authorized, never dispatched, nothing to deliver', () => {
    const { id, events } = traced('denied-retry');
    const answers = investigate(id, events, []);
    expect(answers.state).toBe('denied');
    expect(answers.firstCall).toMatchObject({ authorized: false, dispatched: false, sentence: expect.stringMatching(/^No: denied \(/) });
    expect(answers.targetAnswered).toMatchObject({ answer: 'no', sentence: 'No: it was never dispatched.' });
    expect(answers.deliveryFailedAfterCompletion.answer).toBe('not_applicable');
    expect(answers.laterCalls).toMatchObject({ attached: 1, redispatchAttempts: 0 });
    expect(answers.laterCalls.sentence).toContain('no new attempt: nothing was ever sent to the target');
  });

  it('an unknown outcome settled by probes, with an idempotency key carried by the retry', () => {
    const { id, events } = traced('unknown-outcome-settled');
    const answers = investigate(id, events, []);
    expect(answers.agentProcesses).toMatchObject({ answer: 'one', processes: ['proc:infra-bot-4411'] });
    expect(answers.targetAnswered).toMatchObject({
      answer: 'settled',
      sentence: expect.stringMatching(/^No answer reached Onceport: .*2 probes .*settled as completed/),
    });
    expect(answers.deliveryFailedAfterCompletion.answer).toBe('yes');
    expect(answers.laterCalls).toMatchObject({ attached: 1, idempotencyKeys: ['chg-1187-api-a', 'chg-1187-api-a'], redispatchAttempts: 0 });
  });

  it('a first call with no agent process named: cannot tell', () => {
    const { id, events } = traced('completed-undelivered-retry');
    const anonymous = events.map((t) =>
      t.event?.type === 'ExecutionAccepted' ? { ...t, event: { ...t.event, data: { ...t.event.data, agentProcess: null } } } : t,
    );
    expect(investigate(id, anonymous, []).agentProcesses).toMatchObject({
      answer: 'unknown',
      processes: ['mcp-sess-e2f0'],
      sentence: expect.stringMatching(/^Cannot tell: the first call named no agent process/),
    });
  });

  it('an event that no longer parses is shown but not folded', () => {
    const { id, events } = traced('happy-path');
    const broken = toTracedEvent({
      globalPosition: 99n,
      streamVersion: events.length + 1,
      recordedAt: new Date(),
      eventId: '00000000-0000-4000-8000-000000000000',
      type: 'SomethingNew',
      schemaVersion: 1,
      data: {},
      metadata: {},
    });
    expect(broken).toMatchObject({ event: null, parseError: expect.any(String) });
    expect(investigate(id, [...events, broken], []).state).toBe(investigate(id, events, []).state);
  });
});
