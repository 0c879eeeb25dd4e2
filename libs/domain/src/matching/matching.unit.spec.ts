import { type ExecutionStatus } from '@onceport/contracts';
import { foldEvents, type KnownExecutionState } from '../execution';
import { events, histories } from '../execution/testing/sample-execution';
import { matchRetry } from './match-retry';
import { type RetryMatch } from './retry-match';
import { type IncomingIntent, type RetryCandidate, retryCandidateOf } from './retry-candidate';

const FP_NEW_KEY = `hmac-sha256:k2026-03:${'9c'.repeat(32)}`;
const FP_OLD_KEY = `hmac-sha256:k2026-01:${'3f'.repeat(32)}`;
const T0 = Date.parse('2026-03-02T10:00:00.000Z');
const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

function candidate(status: ExecutionStatus, overrides: Partial<RetryCandidate> = {}): RetryCandidate {
  return {
    executionId: 'exe_01JNQ7ZK3M8V2C4D6F8G0H2J4K',
    fingerprint: FP_OLD_KEY,
    actor: 'agent:billing-bot',
    intentScope: 'run:month-end-2026-02',
    status,
    correlationWindowEndsAt: at(15),
    ledgerRetentionEndsAt: null,
    acceptedAt: at(0),
    ...overrides,
  };
}

const incoming: IncomingIntent = {
  fingerprints: [FP_NEW_KEY, FP_OLD_KEY],
  actor: 'agent:billing-bot',
  intentScope: 'run:month-end-2026-02',
};

/** given(prior executions).when(a call arrives at minute m).then(match) */
function given(...candidates: RetryCandidate[]) {
  return {
    when: (minutes: number, intent: IncomingIntent = incoming) => ({
      then: (expected: RetryMatch) => expect(matchRetry(candidates, intent, new Date(T0 + minutes * 60_000))).toEqual(expected),
    }),
  };
}

const attach = (answer: Extract<RetryMatch, { kind: 'attach' }>['answer'], executionId = 'exe_01JNQ7ZK3M8V2C4D6F8G0H2J4K'): RetryMatch => ({
  kind: 'attach',
  executionId,
  answer,
});
const fresh = (...reasons: Extract<RetryMatch, { kind: 'new' }>['reasons']): RetryMatch => ({ kind: 'new', reasons });

describe('matchRetry (DESIGN.md §5)', () => {
  describe('inside the correlation window, the retry attaches and is answered from the prior state', () => {
    it.each([
      ['accepted', 'continue'],
      ['authorized', 'continue'],
      ['awaiting_approval', 'pending_approval'],
      ['dispatched', 'pending_verification'],
      ['dispatched_unknown', 'pending_verification'],
      ['completed_result_not_delivered', 'replay_stored_result'],
      ['denied', 'same_denial'],
      ['needs_review', 'awaiting_review'],
    ] as const)('%s → %s', (status, answer) => {
      given(candidate(status)).when(5).then(attach(answer));
    });
  });

  describe('outside the correlation window there is no match', () => {
    it.each([
      'accepted',
      'awaiting_approval',
      'authorized',
      'dispatched',
      'dispatched_unknown',
      'denied',
      'needs_review',
      'completed_result_not_delivered',
    ] as const)('%s', (status) => {
      given(candidate(status))
        .when(15)
        .then(fresh({ executionId: candidate(status).executionId, reason: 'outside_correlation_window' }));
    });
  });

  describe('completed and delivered', () => {
    it('is a ledger hit inside a declared ledger retention, even after the correlation window', () => {
      given(candidate('completed', { ledgerRetentionEndsAt: at(60 * 24) }))
        .when(5)
        .then({ kind: 'ledger_hit', executionId: candidate('completed').executionId });
      given(candidate('completed', { ledgerRetentionEndsAt: at(60 * 24) }))
        .when(60 * 23)
        .then({ kind: 'ledger_hit', executionId: candidate('completed').executionId });
    });

    it('is new once the ledger retention is over', () => {
      given(candidate('completed', { ledgerRetentionEndsAt: at(60) }))
        .when(60)
        .then(fresh({ executionId: candidate('completed').executionId, reason: 'outside_ledger_retention' }));
    });

    it('is new without a ledger retention, even inside the window (deploying twice can be deliberate)', () => {
      given(candidate('completed'))
        .when(5)
        .then(fresh({ executionId: candidate('completed').executionId, reason: 'completed_without_ledger' }));
    });
  });

  it('a completed but undelivered execution past its window is still a ledger hit while its ledger retention runs', () => {
    given(candidate('completed_result_not_delivered', { ledgerRetentionEndsAt: at(60) }))
      .when(30)
      .then({ kind: 'ledger_hit', executionId: candidate('completed').executionId });
  });

  it.each(['failed', 'reverted', 'expired'] as const)('%s never matches, even inside the window and a ledger retention', (status) => {
    given(candidate(status, { ledgerRetentionEndsAt: at(60) }))
      .when(5)
      .then(fresh({ executionId: candidate(status).executionId, reason: status }));
  });

  describe('the intent must be the same', () => {
    it('another fingerprint is not a candidate at all', () => {
      given(candidate('dispatched', { fingerprint: `hmac-sha256:k2026-01:${'00'.repeat(32)}` }))
        .when(5)
        .then(fresh());
    });

    it('matches a fingerprint made under an older key of the keyring', () => {
      given(candidate('dispatched', { fingerprint: FP_OLD_KEY }))
        .when(5, { ...incoming, fingerprints: [FP_NEW_KEY, FP_OLD_KEY] })
        .then(attach('pending_verification'));
      given(candidate('dispatched', { fingerprint: FP_OLD_KEY }))
        .when(5, { ...incoming, fingerprints: [FP_NEW_KEY] })
        .then(fresh());
    });

    it('another actor or another intent scope is another operation', () => {
      given(candidate('dispatched', { actor: 'agent:other' }))
        .when(5)
        .then(fresh({ executionId: candidate('dispatched').executionId, reason: 'actor_differs' }));
      given(candidate('dispatched', { intentScope: 'run:month-end-2026-03' }))
        .when(5)
        .then(fresh({ executionId: candidate('dispatched').executionId, reason: 'intent_scope_differs' }));
    });
  });

  describe('several candidates', () => {
    const older = candidate('failed', { executionId: 'exe_01JNQ7ZK3M8V2C4D6F8G0H2J40', acceptedAt: at(0) });
    const newer = candidate('dispatched_unknown', {
      executionId: 'exe_01JNQ8ZK3M8V2C4D6F8G0H2J41',
      acceptedAt: at(2),
      correlationWindowEndsAt: at(17),
    });

    it('the most recent matching candidate wins, whatever the input order', () => {
      const alsoMatching = candidate('authorized', { executionId: 'exe_01JNQ7ZK3M8V2C4D6F8G0H2J42', acceptedAt: at(1) });
      given(alsoMatching, newer, older).when(5).then(attach('pending_verification', newer.executionId));
      given(older, alsoMatching).when(5).then(attach('continue', alsoMatching.executionId));
    });

    it('passes over non-matching newer ones, and lists every passed-over candidate when nothing matches', () => {
      const newerFailed = { ...newer, status: 'failed' as const };
      given(older, newerFailed)
        .when(5)
        .then(fresh({ executionId: newer.executionId, reason: 'failed' }, { executionId: older.executionId, reason: 'failed' }));
      given({ ...older, status: 'completed_result_not_delivered' }, newerFailed)
        .when(5)
        .then(attach('replay_stored_result', older.executionId));
    });

    it('breaks ties within a millisecond by the time-ordered execution id', () => {
      const a = candidate('accepted', { executionId: 'exe_01JNQ7ZK3M8V2C4D6F8G0H2J4A' });
      const b = candidate('awaiting_approval', { executionId: 'exe_01JNQ7ZK3M8V2C4D6F8G0H2J4B' });
      given(a, b).when(5).then(attach('pending_approval', b.executionId));
      given(b, a).when(5).then(attach('pending_approval', b.executionId));
    });
  });

  it('builds candidates from folded executions', () => {
    const state = foldEvents([...histories.completed_result_not_delivered, events.retryAttached()]) as KnownExecutionState;
    expect(retryCandidateOf(state)).toEqual(candidate('completed_result_not_delivered'));
    expect(matchRetry([retryCandidateOf(state)], incoming, new Date(T0 + 60_000))).toEqual(attach('replay_stored_result'));
  });
});
