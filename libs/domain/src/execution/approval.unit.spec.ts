import { given } from './testing/given-when-then';
import { APPROVAL_ID, at, events, histories, meta } from './testing/sample-execution';

const perUse = [events.accepted({ approval: 'per_use' })];
const pending = [...perUse, events.approvalRequested()];

describe('RequestApproval', () => {
  it('opens an approval that expires expiresInMs after now', () => {
    const state = given(perUse)
      .when({
        type: 'RequestApproval',
        data: { approvalId: APPROVAL_ID, policyVersion: 'pol-7', reason: 'Per-use credential', expiresInMs: 9.9 * 60_000 },
        metadata: meta(0.1),
      })
      .then([events.approvalRequested()]);
    expect(state).toMatchObject({ status: 'awaiting_approval', progress: { approvalId: APPROVAL_ID } });
  });

  it('is a no-op for the same pending approval, refused for another one', () => {
    const again = { approvalId: APPROVAL_ID, policyVersion: 'pol-7', reason: 'Per-use credential', expiresInMs: 60_000 };
    given(pending)
      .when({ type: 'RequestApproval', data: again, metadata: meta(1) })
      .thenNothing();
    given(pending)
      .when({ type: 'RequestApproval', data: { ...again, approvalId: 'apr_other' }, metadata: meta(1) })
      .thenRefuses('illegal_transition');
  });

  it('refuses a non-positive expiry', () => {
    given(perUse)
      .when({
        type: 'RequestApproval',
        data: { approvalId: APPROVAL_ID, policyVersion: 'pol-7', reason: 'r', expiresInMs: 0 },
        metadata: meta(1),
      })
      .thenRefuses('invalid_command');
  });
});

describe('GrantApproval', () => {
  const grant = { approvalId: APPROVAL_ID, approver: 'human:ana', reason: '' };

  it('grants and authorizes in one append, the approval as evidence', () => {
    const state = given(pending)
      .when({ type: 'GrantApproval', data: grant, metadata: meta(2) })
      .then([events.approvalGranted(), events.authorized({ basis: 'approval', approvalId: APPROVAL_ID, authorizedAt: at(2) })]);
    expect(state).toMatchObject({
      status: 'authorized',
      progress: { approvalId: APPROVAL_ID, authorization: { basis: 'approval', policyVersion: 'pol-7' } },
    });
  });

  it('is a no-op when that approval already authorized the execution', () => {
    given([...pending, events.approvalGranted(), events.authorized({ basis: 'approval', approvalId: APPROVAL_ID })])
      .when({ type: 'GrantApproval', data: grant, metadata: meta(3) })
      .thenNothing();
  });

  it('refuses another approval id', () => {
    given(pending)
      .when({ type: 'GrantApproval', data: { ...grant, approvalId: 'apr_other' }, metadata: meta(2) })
      .thenRefuses('approval_mismatch');
  });

  it('refuses a grant at or after expiry', () => {
    given(pending)
      .when({ type: 'GrantApproval', data: grant, metadata: meta(10) })
      .thenRefuses('approval_expired');
  });

  it('refuses a grant after a rejection', () => {
    given([...pending, events.denied({ code: 'approval_rejected' })])
      .when({ type: 'GrantApproval', data: grant, metadata: meta(3) })
      .thenRefuses('illegal_transition');
  });
});

describe('RejectApproval', () => {
  const reject = { approvalId: APPROVAL_ID, approver: 'human:ana', reason: 'Wrong customer' };

  it('rejects and denies in one append', () => {
    const state = given(pending)
      .when({ type: 'RejectApproval', data: reject, metadata: meta(2) })
      .then([
        {
          type: 'ApprovalRejected',
          data: {
            executionId: events.accepted().data.executionId,
            approvalId: APPROVAL_ID,
            approver: 'human:ana',
            reason: 'Wrong customer',
            decidedAt: at(2),
          },
        },
        events.denied({ code: 'approval_rejected', reason: 'Rejected by human:ana: Wrong customer', deniedAt: at(2) }),
      ]);
    expect(state).toMatchObject({ status: 'denied', denial: { code: 'approval_rejected' } });
  });

  it('still takes a rejection after expiry (the outcome is the same, the approver is on record)', () => {
    given(pending)
      .when({ type: 'RejectApproval', data: reject, metadata: meta(20) })
      .then([
        {
          type: 'ApprovalRejected',
          data: {
            executionId: events.accepted().data.executionId,
            approvalId: APPROVAL_ID,
            approver: 'human:ana',
            reason: 'Wrong customer',
            decidedAt: at(20),
          },
        },
        events.denied({ code: 'approval_rejected', reason: 'Rejected by human:ana: Wrong customer', deniedAt: at(20) }),
      ]);
  });

  it('is a no-op once that approval was rejected', () => {
    given([...pending, events.denied({ code: 'approval_rejected' })])
      .when({ type: 'RejectApproval', data: reject, metadata: meta(3) })
      .thenNothing();
  });

  it('refuses another approval id, or no pending approval', () => {
    given(pending)
      .when({ type: 'RejectApproval', data: { ...reject, approvalId: 'apr_other' }, metadata: meta(2) })
      .thenRefuses('approval_mismatch');
    given(histories.accepted)
      .when({ type: 'RejectApproval', data: reject, metadata: meta(2) })
      .thenRefuses('illegal_transition');
  });
});

describe('RequestApproval kind', () => {
  it('records what the approval stands for when the caller names it', () => {
    given(perUse)
      .when({
        type: 'RequestApproval',
        data: { approvalId: APPROVAL_ID, policyVersion: 'pol-7', reason: 'Per-use credential', expiresInMs: 9.9 * 60_000, kind: 'per_use' },
        metadata: meta(0.1),
      })
      .then([events.approvalRequested({ kind: 'per_use' })]);
  });
});

describe('ExpireApproval', () => {
  const expire = (minutes: number, approvalId = APPROVAL_ID) =>
    ({ type: 'ExpireApproval', data: { approvalId }, metadata: meta(minutes) }) as const;

  it('ends a lapsed approval as denied with approval_expired, naming the approval and its deadline', () => {
    const state = given(pending)
      .when(expire(10))
      .then([
        events.denied({
          code: 'approval_expired',
          reason: `Approval ${APPROVAL_ID} expired at ${at(10)} without a decision; nothing was sent.`,
          deniedAt: at(10),
        }),
      ]);
    expect(state).toMatchObject({ status: 'denied', denial: { code: 'approval_expired' }, progress: { approvalId: APPROVAL_ID } });
  });

  it('is refused before the deadline, for another approval, or once a human decided', () => {
    given(pending).when(expire(9.9)).thenRefuses('approval_not_expired');
    given(pending).when(expire(11, 'apr_other')).thenRefuses('approval_mismatch');
    given([...pending, events.approvalGranted(), events.authorized({ basis: 'approval', approvalId: APPROVAL_ID })])
      .when(expire(11))
      .thenRefuses('illegal_transition');
    given([...pending, events.denied({ code: 'approval_rejected' })])
      .when(expire(11))
      .thenRefuses('illegal_transition');
  });

  it('is a no-op once that approval expired (two sweeping replicas)', () => {
    given([...pending, events.denied({ code: 'approval_expired', deniedAt: at(10) })])
      .when(expire(12))
      .thenNothing();
  });

  it('after expiry a grant is refused and the execution never reaches authorized', () => {
    given([...pending, events.denied({ code: 'approval_expired', deniedAt: at(10) })])
      .when({ type: 'GrantApproval', data: { approvalId: APPROVAL_ID, approver: 'human:ana', reason: 'late' }, metadata: meta(12) })
      .thenRefuses('illegal_transition');
  });
});
