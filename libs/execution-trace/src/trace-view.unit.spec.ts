import { recordedHistories } from '@onceport/contracts/testing';
import { investigate } from './investigation';
import { type TracedEvent, toTracedEvent } from './traced-event';
import { traceView } from './trace-view';

type Recorded = {
  type: string;
  schemaVersion: number;
  data: { executionId: string; attachedAt?: string };
  metadata: { eventId: string; occurredAt: string };
};

const TRACE_A = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACE_B = '0af7651916cd43dd8448eb211c80319c';

/** A recorded history as the store hands it back, each event's metadata given a traceparent by `traceOf(index)`. */
function traced(name: string, traceOf: (index: number) => string | undefined = () => undefined): TracedEvent[] {
  return (recordedHistories[name] as Recorded[]).map((e, i) => {
    const traceId = traceOf(i);
    return toTracedEvent({
      globalPosition: BigInt(i + 1),
      streamVersion: i + 1,
      recordedAt: new Date(e.metadata.occurredAt),
      eventId: e.metadata.eventId,
      type: e.type,
      schemaVersion: e.schemaVersion,
      data: e.data,
      metadata: traceId ? { ...e.metadata, traceparent: `00-${traceId}-00f067aa0ba902b7-01` } : e.metadata,
    });
  });
}

describe('traceView: what the admin trace route and `trace --json` answer', () => {
  it('names the trace ids the events carry, once each in order, and each event its own', () => {
    const events = traced('completed-undelivered-retry', (i) => (i < 4 ? TRACE_A : i === 4 ? TRACE_B : '0'.repeat(32)));
    const id = events[0]!.event!.data.executionId;
    const view = traceView({ events, laterExecutions: [], eventCount: events.length }, investigate(id, events, []));
    expect(view.trace_ids).toEqual([TRACE_A, TRACE_B]);
    expect(view.timeline.map((e) => e.trace_id)).toEqual([TRACE_A, TRACE_A, TRACE_A, TRACE_A, TRACE_B, null]);
    expect(view.timeline_capped).toBe(false);
  });

  it('says when the timeline was cut, and withholds the arguments of the acceptance', () => {
    const events = traced('happy-path');
    const id = events[0]!.event!.data.executionId;
    const view = traceView({ events: events.slice(0, 2), laterExecutions: [], eventCount: events.length }, investigate(id, events, []));
    expect(view).toMatchObject({ event_count: events.length, timeline_capped: true });
    expect(view.timeline).toHaveLength(2);
    const accepted = view.timeline[0]!.data as Record<string, unknown>;
    expect(accepted['arguments']).toBeUndefined();
    expect(accepted['arguments_withheld']).toEqual(expect.any(Array));
  });

  it('keeps a sentence bounded however many later calls attached: ten named, then how many more', () => {
    const [accepted, ...rest] = traced('completed-undelivered-retry');
    const retry = rest.find((e) => e.type === 'RetryAttached')!;
    const retries = Array.from({ length: 40 }, (_, i) => ({ ...retry, streamVersion: 10 + i, globalPosition: BigInt(10 + i) }));
    const events = [accepted!, ...rest.filter((e) => e.type !== 'RetryAttached'), ...retries];
    const answers = investigate(accepted!.event!.data.executionId, events, []);
    expect(answers.laterCalls.attached).toBe(40);
    expect(answers.laterCalls.sentence).toContain('40 later calls attached to this execution');
    expect(answers.laterCalls.sentence).toContain('; and 30 more)');
    expect(answers.laterCalls.sentence.length).toBeLessThan(2_500);
  });
});
