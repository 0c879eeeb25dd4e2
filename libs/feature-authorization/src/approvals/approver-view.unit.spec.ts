import { randomUUID } from 'node:crypto';
import { type ExecutionEvent, type ExecutionEventEnvelope } from '@onceport/contracts';
import { type ToolContract, foldEvents } from '@onceport/domain';
import { APPROVAL_ID, EXECUTION_ID, FINGERPRINT, at, events } from '@onceport/domain/testing';
import { approverViewOf, retryNote } from './approver-view';
import { targetOf } from './operation-target';

const T = (minutes: number): Date => new Date(Date.parse(at(minutes)));

function envelope(event: ExecutionEvent, actor?: string): ExecutionEventEnvelope {
  const metadata = {
    eventId: randomUUID(),
    correlationId: EXECUTION_ID,
    causationId: 'test',
    occurredAt: at(0),
    ...(actor ? { actor } : {}),
  };
  return { ...event, schemaVersion: 1, metadata } as ExecutionEventEnvelope;
}

function history(...stream: (ExecutionEvent | [ExecutionEvent, string])[]) {
  const envelopes = stream.map((e) => (Array.isArray(e) ? envelope(e[0], e[1]) : envelope(e)));
  return { state: foldEvents(envelopes), events: envelopes };
}

const perUse = events.accepted({ approval: 'per_use' });
const requested = events.approvalRequested({ kind: 'per_use' });

describe('approverViewOf', () => {
  it('is null for an execution that never asked for an approval', () => {
    expect(approverViewOf(history(events.accepted(), events.authorized()), undefined, T(1))).toBeNull();
  });

  it('shows the run and attempt of a call, and the earlier execution it repeats', () => {
    const run = { runId: 'campaign-12', attempt: 2, trigger: 'ticket:OPS-812' };
    const repeats = { executionId: 'exe_01JNQ7ZK3M8V2C4D6F8G0H2J40', deliberate: false, reason: null };
    const view = approverViewOf(history(events.accepted({ approval: 'per_use', run, repeats }), requested), undefined, T(1));
    expect(view).toMatchObject({
      run: { id: 'campaign-12', attempt: 2, trigger: 'ticket:OPS-812' },
      repeats: { execution_id: 'exe_01JNQ7ZK3M8V2C4D6F8G0H2J40', deliberate: false, reason: null },
    });
  });

  it('shows a pending approval with the original record, target, fingerprint and deadline', () => {
    const view = approverViewOf(history(perUse, requested), undefined, T(1));
    expect(view).toEqual({
      approval_id: APPROVAL_ID,
      execution_id: EXECUTION_ID,
      status: 'pending',
      kind: 'per_use',
      actor: 'agent:billing-bot',
      agent_process: 'mcp-sess-a1',
      tool: 'create_invoice',
      target: { channel: 'http', method: 'POST', url: 'https://billing.example.com/v1/invoices' },
      record: perUse.type === 'ExecutionAccepted' ? perUse.data.record : null,
      fingerprint: FINGERPRINT,
      policy_version: 'pol-7',
      reason: 'Per-use credential',
      requested_at: at(0.1),
      expires_at: at(10),
      decided_by: null,
      decided_at: null,
      decision_reason: null,
      first_dispatched_at: null,
      known_outcome: null,
      retries_attached: 0,
      retry_note: 'No retry has arrived for this execution.',
      run: null,
      repeats: null,
    });
  });

  it('counts retries attached while it waits, and says nothing was re-sent', () => {
    const view = approverViewOf(
      history(
        perUse,
        requested,
        events.retryAttached({ stateAtAttach: 'awaiting_approval' }),
        events.retryAttached({ stateAtAttach: 'awaiting_approval' }),
      ),
      undefined,
      T(3),
    );
    expect(view).toMatchObject({ status: 'pending', retries_attached: 2 });
    expect(view?.retry_note).toBe(
      '2 retries attached to this execution; nothing was re-sent and no second approval was requested. The retries wait for this decision.',
    );
  });

  it('after a grant and a dispatch: who decided, why, the first dispatch time and the known outcome', () => {
    const view = approverViewOf(
      history(
        perUse,
        requested,
        events.approvalGranted({ reason: 'customer confirmed' }),
        events.authorized({ basis: 'approval', approvalId: APPROVAL_ID, authorizedAt: at(2) }),
        events.dispatchStarted({ startedAt: at(2.1) }),
        events.observed({ observedAt: at(2.2) }),
        events.retryAttached(),
      ),
      undefined,
      T(30),
    );
    expect(view).toMatchObject({
      status: 'granted',
      decided_by: 'human:ana',
      decided_at: at(2),
      decision_reason: 'customer confirmed',
      first_dispatched_at: at(2.1),
      known_outcome: { state: 'completed_result_not_delivered', target_status: 201 },
      retries_attached: 1,
    });
    expect(view?.retry_note).toContain(`The target received this call once, first at ${at(2.1)}`);
  });

  it('a rejection shows the approver and their words', () => {
    const view = approverViewOf(
      history(
        perUse,
        requested,
        {
          type: 'ApprovalRejected',
          data: { executionId: EXECUTION_ID, approvalId: APPROVAL_ID, approver: 'human:bo', reason: 'wrong customer', decidedAt: at(3) },
        },
        events.denied({ code: 'approval_rejected' }),
      ),
      undefined,
      T(4),
    );
    expect(view).toMatchObject({ status: 'rejected', decided_by: 'human:bo', decided_at: at(3), decision_reason: 'wrong customer' });
  });

  it('is expired once the deadline passed, before and after the sweep records it', () => {
    expect(approverViewOf(history(perUse, requested), undefined, T(10))).toMatchObject({ status: 'expired', decided_by: null });
    const swept = approverViewOf(
      history(perUse, requested, [
        events.denied({ code: 'approval_expired', reason: 'Approval lapsed.', deniedAt: at(10.5) }),
        'svc:authorization',
      ]),
      undefined,
      T(11),
    );
    expect(swept).toMatchObject({
      status: 'expired',
      decided_by: 'svc:authorization',
      decided_at: at(10.5),
      decision_reason: 'Approval lapsed.',
    });
  });

  it('reads an approval recorded before kinds were named: per-use when accepted as per_use, else a session grant', () => {
    const old = events.approvalRequested();
    expect(approverViewOf(history(perUse, old), undefined, T(1))?.kind).toBe('per_use');
    expect(approverViewOf(history(events.accepted({ approval: 'session' }), old), undefined, T(1))?.kind).toBe('session');
  });
});

describe('targetOf', () => {
  it('fills an HTTP path from the record, URL-encoded; a sensitive value stays hidden', () => {
    const record = {
      actor: 'a',
      tool: 't',
      channel: 'http' as const,
      target: 'https://x.example',
      credential_ref: null,
      method: 'DELETE /v1/users/{user}/tokens/{token}',
      arguments: { user: 'ana b', token: { $hmac: 'hmac-sha256:k:00' } },
      intent_scope: 's',
    };
    expect(targetOf(record, undefined)).toEqual({
      channel: 'http',
      method: 'DELETE',
      url: 'https://x.example/v1/users/ana%20b/tokens/{token:hmac}',
    });
  });

  it('reads host, port and user of an SSH target, and the argv from the contract', () => {
    const record = {
      actor: 'a',
      tool: 'migrate',
      channel: 'ssh' as const,
      target: 'ssh://deploy@[::1]:2222',
      credential_ref: 'k',
      method: 'exec',
      arguments: { db: 'shop' },
      intent_scope: 's',
    };
    const contract = { channel: 'ssh', target: { argv: ['/usr/bin/migrate', '--db={db}', '{missing}'] } } as unknown as ToolContract;
    expect(targetOf(record, contract)).toEqual({
      channel: 'ssh',
      host: '::1',
      port: 2222,
      user: 'deploy',
      argv: ['/usr/bin/migrate', '--db=shop', '{missing}'],
    });
    expect(targetOf(record, undefined)).toMatchObject({ channel: 'ssh', argv: null });
  });
});

describe('retryNote', () => {
  it('speaks of one retry in the singular', () => {
    expect(retryNote(1, 'denied', null)).toBe(
      '1 retry attached to this execution; nothing was re-sent and no second approval was requested. The execution is denied.',
    );
  });
});
