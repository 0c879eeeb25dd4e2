// Sample events and commands for given/when/then tests: one execution of an idempotent HTTP tool,
// accepted at T0, with a 15-minute correlation window.
import { type ExecutionEvent, type RequestCorrelation, type ResultReference } from '@onceport/contracts';
import { type ExecutionCommand } from '../execution-command';

export const EXECUTION_ID = 'exe_01JNQ7ZK3M8V2C4D6F8G0H2J4K';
export const FINGERPRINT = `hmac-sha256:k2026-01:${'3f'.repeat(32)}`;
export const T0 = Date.parse('2026-03-02T10:00:00.000Z');
export const WINDOW_MS = 15 * 60_000;
export const APPROVAL_ID = 'apr_01JNQ80000';

/** An ISO timestamp `minutes` after T0. */
export function at(minutes: number): string {
  return new Date(T0 + minutes * 60_000).toISOString();
}

export function meta(minutes: number): { now: Date } {
  return { now: new Date(T0 + minutes * 60_000) };
}

export const MCP_CALL: RequestCorrelation = { transport: 'mcp', jsonRpcId: 7, sessionId: 'mcp-sess-a1' };
export const MCP_RETRY: RequestCorrelation = { transport: 'mcp', jsonRpcId: 1, sessionId: 'mcp-sess-b2' };
export const RESULT: ResultReference = {
  ref: `results/${EXECUTION_ID}/1`,
  digest: `sha256:${'ab'.repeat(32)}`,
  size: 512,
  contentType: 'application/json',
};

const record = {
  actor: 'agent:billing-bot',
  tool: 'create_invoice',
  channel: 'http' as const,
  target: 'https://billing.example.com',
  credential_ref: 'vault:billing/api',
  method: 'POST /v1/invoices',
  arguments: { customer_id: 'cus_42', amount_cents: 12_000 },
  intent_scope: 'run:month-end-2026-02',
};

type AcceptOverrides = Partial<Extract<ExecutionCommand, { type: 'AcceptExecution' }>['data']>;

export function acceptCommand(overrides: AcceptOverrides = {}, minutes = 0): ExecutionCommand {
  return {
    type: 'AcceptExecution',
    metadata: meta(minutes),
    data: {
      executionId: EXECUTION_ID,
      tool: record.tool,
      channel: 'http',
      actor: record.actor,
      agentProcess: 'mcp-sess-a1',
      intentScope: record.intent_scope,
      fingerprint: FINGERPRINT,
      record,
      arguments: { ...record.arguments, memo: 'February services' },
      effectClass: 'idempotent',
      approval: 'none',
      correlationWindowMs: WINDOW_MS,
      ledgerRetentionMs: null,
      clientIdempotencyKey: null,
      ...overrides,
    },
  };
}

type Data<T extends ExecutionEvent['type']> = Extract<ExecutionEvent, { type: T }>['data'];
const executionId = EXECUTION_ID;

/** Events as a decider would have emitted them, with overridable data. */
export const events = {
  accepted: (o: Partial<Data<'ExecutionAccepted'>> = {}): ExecutionEvent => ({
    type: 'ExecutionAccepted',
    data: {
      executionId,
      tool: record.tool,
      channel: 'http',
      actor: record.actor,
      agentProcess: 'mcp-sess-a1',
      intentScope: record.intent_scope,
      fingerprint: FINGERPRINT,
      record,
      arguments: { ...record.arguments, memo: 'February services' },
      effectClass: 'idempotent',
      approval: 'none',
      correlationWindowEndsAt: at(15),
      ledgerRetentionEndsAt: null,
      clientIdempotencyKey: null,
      acceptedAt: at(0),
      run: null,
      repeats: null,
      ...o,
    },
  }),
  approvalRequested: (o: Partial<Data<'ApprovalRequested'>> = {}): ExecutionEvent => ({
    type: 'ApprovalRequested',
    data: {
      executionId,
      approvalId: APPROVAL_ID,
      fingerprint: FINGERPRINT,
      policyVersion: 'pol-7',
      reason: 'Per-use credential',
      expiresAt: at(10),
      requestedAt: at(0.1),
      ...o,
    },
  }),
  approvalGranted: (o: Partial<Data<'ApprovalGranted'>> = {}): ExecutionEvent => ({
    type: 'ApprovalGranted',
    data: { executionId, approvalId: APPROVAL_ID, approver: 'human:ana', reason: '', decidedAt: at(2), ...o },
  }),
  authorized: (o: Partial<Data<'ExecutionAuthorized'>> = {}): ExecutionEvent => ({
    type: 'ExecutionAuthorized',
    data: { executionId, basis: 'policy', policyVersion: 'pol-7', approvalId: null, authorizedAt: at(0.1), ...o },
  }),
  denied: (o: Partial<Data<'ExecutionDenied'>> = {}): ExecutionEvent => ({
    type: 'ExecutionDenied',
    data: { executionId, code: 'policy', reason: 'Invoices above 10k need a finance run.', deniedAt: at(0.1), ...o },
  }),
  retryAttached: (o: Partial<Data<'RetryAttached'>> = {}): ExecutionEvent => ({
    type: 'RetryAttached',
    data: {
      executionId,
      correlation: MCP_RETRY,
      agentProcess: 'mcp-sess-b2',
      clientIdempotencyKey: null,
      stateAtAttach: 'dispatched',
      run: null,
      attachedAt: at(1),
      ...o,
    },
  }),
  dispatchStarted: (o: Partial<Data<'DispatchStarted'>> = {}): ExecutionEvent => ({
    type: 'DispatchStarted',
    data: { executionId, attempt: 1, dispatcherId: 'dispatcher-0', leaseExpiresAt: at(0.7), startedAt: at(0.2), ...o },
  }),
  failedBeforeSend: (o: Partial<Data<'DispatchFailedBeforeSend'>> = {}): ExecutionEvent => ({
    type: 'DispatchFailedBeforeSend',
    data: { executionId, attempt: 1, reason: 'connect ECONNREFUSED', retryable: true, failedAt: at(0.3), ...o },
  }),
  observed: (o: Partial<Data<'OutcomeObserved'>> = {}): ExecutionEvent => ({
    type: 'OutcomeObserved',
    data: { executionId, attempt: 1, targetStatus: 201, succeeded: true, result: RESULT, observedAt: at(0.3), ...o },
  }),
  unknown: (o: Partial<Data<'OutcomeUnknown'>> = {}): ExecutionEvent => ({
    type: 'OutcomeUnknown',
    data: { executionId, attempt: 1, reason: 'socket reset after the body was sent', detectedAt: at(0.5), ...o },
  }),
  probed: (o: Partial<Data<'ProbeAttempted'>> = {}): ExecutionEvent => ({
    type: 'ProbeAttempted',
    data: {
      executionId,
      attempt: 1,
      probeNumber: 1,
      verdict: 'cant_tell',
      detail: 'GET /v1/invoices?key=… timed out',
      probedAt: at(1),
      ...o,
    },
  }),
  settled: (o: Partial<Data<'OutcomeSettled'>> = {}): ExecutionEvent => ({
    type: 'OutcomeSettled',
    data: {
      executionId,
      attempt: 1,
      settlement: 'needs_review',
      reason: 'Probes could not tell.',
      targetStatus: null,
      result: null,
      settledAt: at(2),
      ...o,
    },
  }),
  delivered: (o: Partial<Data<'ResultDelivered'>> = {}): ExecutionEvent => ({
    type: 'ResultDelivered',
    data: { executionId, transport: 'mcp', replay: false, correlation: MCP_CALL, deliveredAt: at(0.4), ...o },
  }),
  reviewResolved: (o: Partial<Data<'ReviewResolved'>> = {}): ExecutionEvent => ({
    type: 'ReviewResolved',
    data: { executionId, resolution: 'applied', reviewer: 'human:ana', reason: 'Invoice INV-2207 exists.', resolvedAt: at(30), ...o },
  }),
  reverted: (o: Partial<Data<'ExecutionReverted'>> = {}): ExecutionEvent => ({
    type: 'ExecutionReverted',
    data: { executionId, by: 'human:ana', reason: 'Invoice voided: wrong customer.', revertedAt: at(40), ...o },
  }),
  expired: (o: Partial<Data<'CorrelationExpired'>> = {}): ExecutionEvent => ({
    type: 'CorrelationExpired',
    data: { executionId, expiredAt: at(15), ...o },
  }),
};

/** One canonical history per derived state. */
export const histories = {
  none: [],
  accepted: [events.accepted()],
  awaiting_approval: [events.accepted(), events.approvalRequested()],
  authorized: [events.accepted(), events.authorized()],
  denied: [events.accepted(), events.denied()],
  dispatched: [events.accepted(), events.authorized(), events.dispatchStarted()],
  dispatched_unknown: [events.accepted(), events.authorized(), events.dispatchStarted(), events.unknown()],
  completed_result_not_delivered: [events.accepted(), events.authorized(), events.dispatchStarted(), events.observed()],
  completed: [events.accepted(), events.authorized(), events.dispatchStarted(), events.observed(), events.delivered()],
  failed: [events.accepted(), events.authorized(), events.dispatchStarted(), events.observed({ targetStatus: 422, succeeded: false })],
  needs_review: [events.accepted(), events.authorized(), events.dispatchStarted(), events.unknown(), events.settled()],
  reverted: [events.accepted(), events.authorized(), events.dispatchStarted(), events.observed(), events.delivered(), events.reverted()],
  expired: [events.accepted(), events.expired()],
} as const satisfies Record<string, readonly ExecutionEvent[]>;
