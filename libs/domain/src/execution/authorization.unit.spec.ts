import { given } from './testing/given-when-then';
import { at, events, histories, meta } from './testing/sample-execution';

const pending = [events.accepted({ approval: 'per_use' }), events.approvalRequested()];

describe('AuthorizeExecution', () => {
  it('authorizes an accepted execution by policy or session grant', () => {
    for (const basis of ['policy', 'session_grant'] as const) {
      const state = given(histories.accepted)
        .when({ type: 'AuthorizeExecution', data: { basis, policyVersion: 'pol-7' }, metadata: meta(0.1) })
        .then([events.authorized({ basis })]);
      expect(state).toMatchObject({
        status: 'authorized',
        progress: { authorization: { basis, policyVersion: 'pol-7', authorizedAt: at(0.1) } },
      });
    }
  });

  it('refuses a policy authorization of a per-use credential (a human must approve each call)', () => {
    given([events.accepted({ approval: 'per_use' })])
      .when({ type: 'AuthorizeExecution', data: { basis: 'session_grant', policyVersion: 'pol-7' }, metadata: meta(0.1) })
      .thenRefuses('approval_required');
  });

  it('is a no-op on the same authorization, refused on a different basis or later state', () => {
    given(histories.authorized)
      .when({ type: 'AuthorizeExecution', data: { basis: 'policy', policyVersion: 'pol-7' }, metadata: meta(1) })
      .thenNothing();
    given(histories.authorized)
      .when({ type: 'AuthorizeExecution', data: { basis: 'session_grant', policyVersion: 'pol-7' }, metadata: meta(1) })
      .thenRefuses('illegal_transition');
    given(histories.dispatched)
      .when({ type: 'AuthorizeExecution', data: { basis: 'policy', policyVersion: 'pol-7' }, metadata: meta(1) })
      .thenRefuses('illegal_transition');
  });
});

describe('DenyExecution', () => {
  it.each([
    ['accepted', histories.accepted],
    ['awaiting_approval', pending],
    ['authorized', histories.authorized],
  ] as const)('denies from %s while nothing has been sent', (_status, history) => {
    const state = given(history)
      .when({ type: 'DenyExecution', data: { code: 'vault_locked', reason: 'The vault is locked.' }, metadata: meta(1) })
      .then([events.denied({ code: 'vault_locked', reason: 'The vault is locked.', deniedAt: at(1) })]);
    expect(state).toMatchObject({ status: 'denied', denial: { code: 'vault_locked' } });
  });

  it('denies an authorized execution whose last attempt failed before send (nothing reached the target)', () => {
    given([...histories.dispatched, events.failedBeforeSend()])
      .when({ type: 'DenyExecution', data: { code: 'policy', reason: 'Policy changed.' }, metadata: meta(1) })
      .then([events.denied({ reason: 'Policy changed.', deniedAt: at(1) })]);
  });

  it('expires a pending approval only once it has expired', () => {
    const expire = { code: 'approval_expired', reason: 'Nobody approved within 10 minutes.' } as const;
    given(pending)
      .when({ type: 'DenyExecution', data: expire, metadata: meta(9) })
      .thenRefuses('approval_not_expired');
    given(pending)
      .when({ type: 'DenyExecution', data: expire, metadata: meta(10) })
      .then([events.denied({ ...expire, deniedAt: at(10) })]);
    given(histories.accepted)
      .when({ type: 'DenyExecution', data: expire, metadata: meta(10) })
      .thenRefuses('illegal_transition');
  });

  it('is a no-op for the same denial, refused for another code', () => {
    given(histories.denied)
      .when({ type: 'DenyExecution', data: { code: 'policy', reason: 'again' }, metadata: meta(1) })
      .thenNothing();
    given(histories.denied)
      .when({ type: 'DenyExecution', data: { code: 'vault_locked', reason: 'locked' }, metadata: meta(1) })
      .thenRefuses('illegal_transition');
  });

  it('refuses once something may have been sent', () => {
    given(histories.dispatched)
      .when({ type: 'DenyExecution', data: { code: 'vault_locked', reason: 'locked' }, metadata: meta(1) })
      .thenRefuses('illegal_transition');
  });
});
