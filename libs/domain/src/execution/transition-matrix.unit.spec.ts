// Every command against one canonical history per state: which are legal, which are a recognised
// redelivery (no events), and which are refused with which code.
import { type ExecutionStatus } from '@onceport/contracts';
import { decide } from './decide';
import { type ExecutionCommand, type ExecutionCommandType } from './execution-command';
import { foldEvents } from './evolve';
import { IllegalTransitionError } from './illegal-transition.error';
import { APPROVAL_ID, MCP_CALL, MCP_RETRY, RESULT, acceptCommand, histories, meta } from './testing/sample-execution';

type Status = ExecutionStatus | 'none';
type Outcome = 'emits' | 'noop' | IllegalTransitionError['code'];

const STATUSES = Object.keys(histories) as Status[];

const commands: Record<ExecutionCommandType, ExecutionCommand> = {
  AcceptExecution: acceptCommand(),
  AttachRetry: {
    type: 'AttachRetry',
    data: { correlation: MCP_RETRY, agentProcess: 'mcp-sess-b2', clientIdempotencyKey: null },
    metadata: meta(5),
  },
  RequestApproval: {
    type: 'RequestApproval',
    data: { approvalId: APPROVAL_ID, policyVersion: 'pol-7', reason: 'Per-use credential', expiresInMs: 600_000 },
    metadata: meta(5),
  },
  GrantApproval: { type: 'GrantApproval', data: { approvalId: APPROVAL_ID, approver: 'human:ana', reason: '' }, metadata: meta(5) },
  RejectApproval: { type: 'RejectApproval', data: { approvalId: APPROVAL_ID, approver: 'human:ana', reason: 'no' }, metadata: meta(5) },
  ExpireApproval: { type: 'ExpireApproval', data: { approvalId: APPROVAL_ID }, metadata: meta(10) },
  AuthorizeExecution: { type: 'AuthorizeExecution', data: { basis: 'policy', policyVersion: 'pol-7' }, metadata: meta(5) },
  DenyExecution: { type: 'DenyExecution', data: { code: 'policy', reason: 'Invoices above 10k need a finance run.' }, metadata: meta(5) },
  StartDispatch: { type: 'StartDispatch', data: { dispatcherId: 'dispatcher-0', leaseMs: 30_000 }, metadata: meta(5) },
  FailDispatchBeforeSend: {
    type: 'FailDispatchBeforeSend',
    data: { attempt: 1, reason: 'ECONNREFUSED', retryable: true },
    metadata: meta(5),
  },
  ObserveOutcome: { type: 'ObserveOutcome', data: { attempt: 1, targetStatus: 201, succeeded: true, result: RESULT }, metadata: meta(5) },
  MarkOutcomeUnknown: { type: 'MarkOutcomeUnknown', data: { attempt: 1, reason: 'lease expired' }, metadata: meta(5) },
  RecordProbe: { type: 'RecordProbe', data: { attempt: 1, probeNumber: 1, verdict: 'applied', detail: 'found' }, metadata: meta(5) },
  SettleOutcome: {
    type: 'SettleOutcome',
    data: { attempt: 1, settlement: 'completed', reason: 'probe found it', targetStatus: 201, result: null },
    metadata: meta(5),
  },
  RecordDelivery: { type: 'RecordDelivery', data: { transport: 'mcp', replay: false, correlation: MCP_CALL }, metadata: meta(5) },
  ResolveReview: { type: 'ResolveReview', data: { resolution: 'applied', reviewer: 'human:ana', reason: 'it exists' }, metadata: meta(5) },
  RevertExecution: { type: 'RevertExecution', data: { by: 'human:ana', reason: 'voided' }, metadata: meta(45) },
  ExpireCorrelation: { type: 'ExpireCorrelation', data: {}, metadata: meta(30) },
};

// Columns follow `histories`: none, accepted, awaiting_approval, authorized, denied, dispatched,
// dispatched_unknown, completed_result_not_delivered, completed, failed, needs_review, reverted, expired.
const I = 'illegal_transition';
const K = 'outcome_already_known';
const N = 'not_accepted';
const table: Record<ExecutionCommandType, readonly Outcome[]> = {
  //                      none    acc      await    auth     denied   disp     unknown  c_rnd    compl    failed   review   revert   expired
  AcceptExecution: ['emits', 'noop', 'noop', 'noop', 'noop', 'noop', 'noop', 'noop', 'noop', 'noop', 'noop', 'noop', 'noop'],
  AttachRetry: [N, 'emits', 'emits', 'emits', 'emits', 'emits', 'emits', 'emits', 'emits', 'emits', 'emits', 'emits', 'emits'],
  RequestApproval: [N, 'emits', 'noop', I, I, I, I, I, I, I, I, I, I],
  GrantApproval: [N, I, 'emits', I, I, I, I, I, I, I, I, I, I],
  RejectApproval: [N, I, 'emits', I, I, I, I, I, I, I, I, I, I],
  ExpireApproval: [N, I, 'emits', I, I, I, I, I, I, I, I, I, I],
  AuthorizeExecution: [N, 'emits', I, 'noop', I, I, I, I, I, I, I, I, I],
  DenyExecution: [N, 'emits', 'emits', 'emits', 'noop', I, I, I, I, I, I, I, I],
  StartDispatch: [N, I, I, 'emits', I, I, I, I, I, I, I, I, I],
  FailDispatchBeforeSend: [N, I, I, I, I, 'emits', K, K, K, K, K, K, I],
  ObserveOutcome: [N, I, I, I, I, 'emits', 'emits', 'noop', 'noop', K, K, 'noop', I],
  MarkOutcomeUnknown: [N, I, I, I, I, 'emits', 'noop', K, K, K, K, K, I],
  RecordProbe: [N, I, I, I, I, I, 'emits', K, K, K, K, K, I],
  SettleOutcome: [N, I, I, I, I, I, 'emits', K, K, K, K, K, I],
  RecordDelivery: [N, I, I, I, I, I, I, 'emits', 'noop', 'emits', I, 'noop', I],
  ResolveReview: [N, I, I, I, I, I, I, I, I, I, 'emits', I, I],
  RevertExecution: [N, I, I, I, I, I, I, 'emits', 'emits', 'emits', 'emits', 'noop', I],
  ExpireCorrelation: [N, 'emits', 'emits', 'emits', I, I, I, 'emits', I, I, I, I, 'noop'],
};

function outcomeOf(command: ExecutionCommand, status: Status): Outcome {
  try {
    return decide(command, foldEvents(histories[status])).length === 0 ? 'noop' : 'emits';
  } catch (error) {
    if (error instanceof IllegalTransitionError) return error.code;
    throw error;
  }
}

describe('execution transition matrix', () => {
  it('folds each canonical history into its state', () => {
    for (const status of STATUSES) expect(foldEvents(histories[status]).status).toBe(status);
  });

  const cases = (Object.keys(table) as ExecutionCommandType[]).flatMap((type) =>
    STATUSES.map((status, column) => ({ type, status, expected: table[type][column] })),
  );

  it.each(cases)('$type in $status → $expected', ({ type, status, expected }) => {
    expect(outcomeOf(commands[type], status)).toBe(expected);
  });
});
