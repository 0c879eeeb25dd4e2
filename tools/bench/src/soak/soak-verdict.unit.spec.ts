import type { IntentRecord } from './open-loop';
import { type StoredExecution, soakVerdict } from './soak-verdict';

function intent(project: string, ids: string[], answered = true, attempts = 1): IntentRecord {
  return {
    project,
    version: 'v1',
    startedAt: 1_000,
    answeredAt: answered ? 1_250 : null,
    executionIds: new Set(ids),
    state: answered ? 'completed' : null,
    attempts,
    firstError: attempts > 1 ? 'SocketError: other side closed' : null,
  };
}

const done = (settledAfter = 100): StoredExecution => ({ status: 'completed', acceptedAt: 1_000, settledAt: 1_000 + settledAfter });

describe('the soak verdict', () => {
  it('passes a run where every intent was applied once under the execution id intake named', () => {
    const verdict = soakVerdict(
      [intent('a', ['e1']), intent('b', ['e2'], true, 3)],
      new Map([
        ['e1', done(100)],
        ['e2', done(300)],
      ]),
      [
        { project: 'a', idempotencyKey: 'e1' },
        { project: 'b', idempotencyKey: 'e2' },
      ],
    );
    expect(verdict).toMatchObject({ intents: 2, answered: 2, duplicates: 0, lost: 0, stuck: 0, splitIdentities: 0, retriedIntents: 1 });
    expect(verdict.settle.max).toBe(300);
    expect(verdict.answer.p50).toBe(250);
  });

  it('counts an intent applied twice, and an execution id sent twice, as duplicates', () => {
    const verdict = soakVerdict(
      [intent('a', ['e1']), intent('b', ['e2'])],
      new Map([
        ['e1', done()],
        ['e2', done()],
      ]),
      [
        { project: 'a', idempotencyKey: 'e1' },
        { project: 'a', idempotencyKey: 'e9' },
        { project: 'b', idempotencyKey: 'e2' },
        { project: 'c', idempotencyKey: 'e2' },
      ],
    );
    expect(verdict.duplicates).toBe(2);
  });

  it('counts an answered id the store lacks, and a completed execution the target never saw, as lost', () => {
    const verdict = soakVerdict([intent('a', ['e1']), intent('b', ['e2'])], new Map([['e2', done()]]), []);
    expect(verdict.lost).toBe(2);
  });

  it('counts executions left in flight as stuck, needs_review apart, and retries named twice as split identities', () => {
    const verdict = soakVerdict(
      [intent('a', ['e1', 'e2'], true, 2), intent('b', [], false, 9)],
      new Map<string, StoredExecution>([
        ['e1', { status: 'dispatched_unknown', acceptedAt: 1, settledAt: null }],
        ['e2', { status: 'needs_review', acceptedAt: 1, settledAt: null }],
        ['e3', { status: 'awaiting_approval', acceptedAt: 1, settledAt: null }],
      ]),
      [{ project: 'b', idempotencyKey: 'e4' }],
    );
    expect(verdict).toMatchObject({ stuck: 2, needsReview: 1, splitIdentities: 1, unanswered: 1, appliedUnanswered: 1 });
  });
});
