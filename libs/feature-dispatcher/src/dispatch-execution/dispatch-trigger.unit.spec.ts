import type { ExecutionEventEnvelope } from '@onceport/contracts';
import { events } from '@onceport/domain/testing';
import { dispatchTriggerOf } from './dispatch-trigger';

const EVENT_TRACE = '00-11111111111111111111111111111111-2222222222222222-01';
const HEADER_TRACE = '00-33333333333333333333333333333333-4444444444444444-01';
const envelope = (event: ReturnType<typeof events.accepted>): ExecutionEventEnvelope =>
  ({
    ...event,
    schemaVersion: 1,
    metadata: {
      eventId: '7d0e4a8e-6a7e-4d53-9d43-1d5f1c1f0a01',
      correlationId: 'c',
      causationId: 'c',
      occurredAt: '2026-03-02T10:00:00.000Z',
      traceparent: EVENT_TRACE,
      tracestate: 'a=1',
    },
  }) as ExecutionEventEnvelope;
const noHeaders = { traceparent: null, tracestate: null };

describe('dispatchTriggerOf', () => {
  it.each([
    ['ExecutionAuthorized', events.authorized(), true],
    ['OutcomeSettled not_applied', events.settled({ settlement: 'not_applied' }), true],
    ['OutcomeSettled needs_review', events.settled({ settlement: 'needs_review' }), false],
    ['OutcomeSettled completed', events.settled({ settlement: 'completed' }), false],
    ['DispatchFailedBeforeSend retryable', events.failedBeforeSend({ retryable: true }), true],
    ['DispatchFailedBeforeSend final', events.failedBeforeSend({ retryable: false }), false],
    ['OutcomeUnknown (the reconciler’s, never a re-send)', events.unknown(), false],
    ['ExecutionAccepted', events.accepted(), false],
  ])('%s → dispatch: %s', (_name, event, dispatches) => {
    expect(dispatchTriggerOf(envelope(event), noHeaders) !== null).toBe(dispatches);
  });

  it('names the event as the cause and joins the trace of the message headers, else the event’s', () => {
    const event = envelope(events.authorized());
    expect(dispatchTriggerOf(event, noHeaders)).toEqual({
      executionId: event.data.executionId,
      cause: { eventId: event.metadata.eventId, traceparent: EVENT_TRACE, tracestate: 'a=1' },
    });
    expect(dispatchTriggerOf(event, { traceparent: HEADER_TRACE, tracestate: null })?.cause).toMatchObject({
      traceparent: HEADER_TRACE,
      tracestate: null,
    });
  });
});
