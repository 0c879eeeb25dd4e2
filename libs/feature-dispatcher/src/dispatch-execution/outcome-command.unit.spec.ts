import type { ExecutionEventEnvelope } from '@onceport/contracts';
import { RESULT, events } from '@onceport/domain/testing';
import { outcomeCommand } from './outcome-command';

const now = new Date('2026-03-02T10:00:03.000Z');
const policy = { retries: 1, backoffMs: 10 };
const stream = (...list: ReturnType<typeof events.accepted>[]): ExecutionEventEnvelope[] =>
  list.map(
    (event) =>
      ({
        ...event,
        schemaVersion: 1,
        metadata: { eventId: '00000000-0000-4000-8000-000000000000', correlationId: 'c', causationId: 'c', occurredAt: now.toISOString() },
      }) as ExecutionEventEnvelope,
  );
const firstAttempt = stream(events.accepted(), events.authorized(), events.dispatchStarted());

describe('outcomeCommand', () => {
  it('observes a target answer with the stored result', () => {
    expect(outcomeCommand({ kind: 'observed', status: 201, succeeded: true, result: RESULT }, 1, firstAttempt, policy, now)).toEqual({
      type: 'ObserveOutcome',
      data: { attempt: 1, targetStatus: 201, succeeded: true, result: RESULT },
      metadata: { now },
    });
  });

  it('marks an unknown outcome unknown, with its reason', () => {
    expect(
      outcomeCommand(
        { kind: 'unknown', reason: 'connection_lost after the request was written: socket hang up' },
        1,
        firstAttempt,
        policy,
        now,
      ),
    ).toMatchObject({
      type: 'MarkOutcomeUnknown',
      data: { attempt: 1, reason: 'connection_lost after the request was written: socket hang up' },
    });
  });

  it("carries an MCP upstream's unfinished task id into the unknown outcome", () => {
    const verdict = { kind: 'unknown' as const, reason: 'task_unfinished: task tsk_9: still working', upstreamTaskId: 'tsk_9' };
    expect(outcomeCommand(verdict, 1, firstAttempt, policy, now)).toEqual({
      type: 'MarkOutcomeUnknown',
      data: { attempt: 1, reason: verdict.reason, upstreamTaskId: 'tsk_9' },
      metadata: { now },
    });
  });

  it('keeps a retryable failure retryable while the round has retries left, then records it as final and says why', () => {
    const verdict = { kind: 'failed_before_send' as const, reason: 'connect_refused: ECONNREFUSED', retryable: true };
    expect(outcomeCommand(verdict, 1, firstAttempt, policy, now)).toMatchObject({
      type: 'FailDispatchBeforeSend',
      data: { attempt: 1, retryable: true, reason: verdict.reason },
    });
    const secondAttempt = stream(
      events.accepted(),
      events.authorized(),
      events.dispatchStarted(),
      events.failedBeforeSend(),
      events.dispatchStarted({ attempt: 2 }),
    );
    expect(outcomeCommand(verdict, 2, secondAttempt, policy, now)).toMatchObject({
      type: 'FailDispatchBeforeSend',
      data: { attempt: 2, retryable: false, reason: 'connect_refused: ECONNREFUSED (gave up after 2 tries)' },
    });
  });

  it('leaves a failure that is final by nature as it is', () => {
    expect(
      outcomeCommand(
        { kind: 'failed_before_send', reason: 'ssh channel not available in this version', retryable: false },
        1,
        firstAttempt,
        policy,
        now,
      ),
    ).toMatchObject({
      data: { retryable: false, reason: 'ssh channel not available in this version' },
    });
  });
});
