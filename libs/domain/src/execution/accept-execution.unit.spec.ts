import { given } from './testing/given-when-then';
import { MCP_RETRY, acceptCommand, at, events, histories, meta } from './testing/sample-execution';

describe('AcceptExecution', () => {
  it('accepts on an empty stream, anchoring the windows at now', () => {
    const state = given([])
      .when(acceptCommand({ ledgerRetentionMs: 30 * 24 * 3_600_000 }))
      .then([events.accepted({ ledgerRetentionEndsAt: '2026-04-01T10:00:00.000Z' })]);
    expect(state).toMatchObject({ status: 'accepted', progress: { attempt: 0, delivered: false, firstDispatchedAt: null } });
  });

  it('is a no-op when the same execution is accepted again (intake handler re-run)', () => {
    given(histories.dispatched).when(acceptCommand({}, 3)).thenNothing();
  });

  it('refuses a different execution on an existing stream', () => {
    given(histories.accepted)
      .when(acceptCommand({ executionId: 'exe_01JNQ7ZK3M8V2C4D6F8G0H2J4M' }))
      .thenRefuses('already_accepted');
  });

  it('refuses a non-positive correlation window or ledger retention', () => {
    given([])
      .when(acceptCommand({ correlationWindowMs: 0 }))
      .thenRefuses('invalid_command');
    given([])
      .when(acceptCommand({ ledgerRetentionMs: -1 }))
      .thenRefuses('invalid_command');
  });

  it('refuses a record that disagrees with the fields matching reads', () => {
    const command = acceptCommand();
    if (command.type !== 'AcceptExecution') throw new Error('unreachable');
    const error = given([])
      .when(acceptCommand({ actor: 'agent:someone-else', record: { ...command.data.record } }))
      .thenRefuses('invalid_command');
    expect(error.message).toContain('record.actor');
  });

  it('refuses a malformed execution id', () => {
    given([])
      .when(acceptCommand({ executionId: 'exe_lowercase' }))
      .thenRefuses('invalid_command');
  });
});

describe('AttachRetry', () => {
  it.each(['accepted', 'dispatched_unknown', 'completed', 'reverted'] as const)(
    'records the attach and the state it was answered from (%s)',
    (status) => {
      const state = given(histories[status])
        .when({
          type: 'AttachRetry',
          data: { correlation: MCP_RETRY, agentProcess: 'mcp-sess-b2', clientIdempotencyKey: 'ik-1' },
          metadata: meta(1),
        })
        .then([events.retryAttached({ stateAtAttach: status, clientIdempotencyKey: 'ik-1', attachedAt: at(1) })]);
      expect(state.status).toBe(status);
      expect(state.status !== 'none' && state.progress.retriesAttached).toBe(1);
    },
  );

  it('records every retry, even with a reused JSON-RPC id (ids restart per session)', () => {
    const retry = events.retryAttached({ stateAtAttach: 'dispatched' });
    given([...histories.dispatched, retry])
      .when({
        type: 'AttachRetry',
        data: { correlation: MCP_RETRY, agentProcess: 'mcp-sess-b2', clientIdempotencyKey: null },
        metadata: meta(1),
      })
      .then([retry]);
  });

  it('needs an accepted execution', () => {
    given([])
      .when({ type: 'AttachRetry', data: { correlation: MCP_RETRY, agentProcess: null, clientIdempotencyKey: null }, metadata: meta(1) })
      .thenRefuses('not_accepted');
  });
});
