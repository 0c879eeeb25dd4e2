import { type RequestCorrelation } from '@onceport/contracts';
import { given } from './testing/given-when-then';
import { MCP_CALL, MCP_RETRY, at, events, histories, meta } from './testing/sample-execution';

const deliver = (replay: boolean, correlation: RequestCorrelation = MCP_CALL, minutes = 0.4) =>
  ({ type: 'RecordDelivery', data: { transport: 'mcp', replay, correlation }, metadata: meta(minutes) }) as const;

describe('RecordDelivery', () => {
  it('completed_result_not_delivered → completed', () => {
    const state = given(histories.completed_result_not_delivered).when(deliver(false)).then([events.delivered()]);
    expect(state).toMatchObject({ status: 'completed', progress: { delivered: true, lastDelivery: { replay: false } } });
  });

  it('a replay to an attached retry also completes an undelivered execution', () => {
    const history = [
      ...histories.completed_result_not_delivered,
      events.retryAttached({ stateAtAttach: 'completed_result_not_delivered' }),
    ];
    const state = given(history)
      .when(deliver(true, MCP_RETRY, 1))
      .then([events.delivered({ replay: true, correlation: MCP_RETRY, deliveredAt: at(1) })]);
    expect(state.status).toBe('completed');
  });

  it('on failed, records the delivery and stays failed', () => {
    const state = given(histories.failed).when(deliver(false)).then([events.delivered()]);
    expect(state).toMatchObject({ status: 'failed', progress: { delivered: true } });
  });

  it('is a no-op for the identical delivery (RecordDelivery twice)', () => {
    given(histories.completed)
      .when(deliver(false, MCP_CALL, 0.5))
      .thenNothing();
  });

  it('records every further replay (ledger hits, later retries)', () => {
    given(histories.completed)
      .when(deliver(true, MCP_RETRY, 60))
      .then([events.delivered({ replay: true, correlation: MCP_RETRY, deliveredAt: at(60) })]);
  });

  it('refuses a second first-delivery', () => {
    given(histories.completed).when(deliver(false, MCP_RETRY)).thenRefuses('already_delivered');
  });

  it('refuses when there is no result to deliver', () => {
    given(histories.dispatched_unknown).when(deliver(false)).thenRefuses('illegal_transition');
    given(histories.denied).when(deliver(false)).thenRefuses('illegal_transition');
  });
});

describe('RevertExecution', () => {
  const revert = {
    type: 'RevertExecution',
    data: { by: 'human:ana', reason: 'Invoice voided: wrong customer.' },
    metadata: meta(40),
  } as const;

  it.each(['completed', 'completed_result_not_delivered', 'failed', 'needs_review'] as const)(
    'reverts from %s, remembering where from',
    (status) => {
      const state = given(histories[status]).when(revert).then([events.reverted()]);
      expect(state).toMatchObject({ status: 'reverted', reversal: { by: 'human:ana', from: status } });
    },
  );

  it('is a no-op once reverted; refused while the outcome is open', () => {
    given(histories.reverted).when(revert).thenNothing();
    given(histories.dispatched_unknown).when(revert).thenRefuses('illegal_transition');
  });
});

describe('ExpireCorrelation', () => {
  const expire = (minutes: number) => ({ type: 'ExpireCorrelation', data: {}, metadata: meta(minutes) }) as const;

  it.each(['accepted', 'awaiting_approval', 'authorized', 'completed_result_not_delivered'] as const)(
    'expires %s once the window closed',
    (status) => {
      const state = given(histories[status]).when(expire(15)).then([events.expired()]);
      expect(state).toMatchObject({ status: 'expired', expiry: { from: status } });
    },
  );

  it('refuses while the window is open', () => {
    given(histories.accepted).when(expire(14.9)).thenRefuses('window_still_open');
  });

  it('keeps a completed execution while its ledger still answers for it', () => {
    const history = [events.accepted({ ledgerRetentionEndsAt: at(60) }), events.authorized(), events.dispatchStarted(), events.observed()];
    given(history).when(expire(30)).thenRefuses('ledger_retention_running');
    given(history)
      .when(expire(60))
      .then([events.expired({ expiredAt: at(60) })]);
  });

  it('refuses an open outcome: it must be settled, or a retry could send twice', () => {
    const error = given(histories.dispatched_unknown).when(expire(30)).thenRefuses('illegal_transition');
    expect(error.message).toContain('settle the outcome first');
  });

  it('is a no-op once expired', () => {
    given(histories.expired).when(expire(30)).thenNothing();
  });
});
