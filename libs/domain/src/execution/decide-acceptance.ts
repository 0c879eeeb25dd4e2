import { type ExecutionEvent, ExecutionAcceptedData } from '@onceport/contracts';
import { type AcceptExecution, type AttachRetry } from './execution-command';
import { type ExecutionState, type KnownExecutionState } from './execution-state';
import { nowIso, plusMs, refuse, requirePositive } from './guards';

export function acceptExecution(command: AcceptExecution, state: ExecutionState): ExecutionEvent[] {
  const { correlationWindowMs, ledgerRetentionMs, ...rest } = command.data;
  if (state.status !== 'none') {
    // Same id and same intent: the intake handler ran twice (e.g. after a concurrency conflict).
    if (state.facts.executionId === rest.executionId && state.facts.fingerprint === rest.fingerprint) return [];
    return refuse('already_accepted', command, state, `This stream already holds execution ${state.facts.executionId}.`);
  }
  requirePositive(command, state, 'correlationWindowMs', correlationWindowMs);
  if (ledgerRetentionMs !== null) requirePositive(command, state, 'ledgerRetentionMs', ledgerRetentionMs);
  const data = {
    ...rest,
    arguments: { ...rest.arguments },
    correlationWindowEndsAt: plusMs(command, correlationWindowMs),
    ledgerRetentionEndsAt: ledgerRetentionMs === null ? null : plusMs(command, ledgerRetentionMs),
    acceptedAt: nowIso(command),
    run: rest.run ?? null,
    repeats: rest.repeats ?? null,
  };
  // Inputs come from outside (the record, the arguments): check them against the contract here, so a
  // bad record is refused as a command instead of surfacing as an unpublishable event.
  const checked = ExecutionAcceptedData.safeParse(data);
  if (!checked.success) {
    const issues = checked.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    return refuse('invalid_command', command, state, `AcceptExecution: ${issues}`);
  }
  return [{ type: 'ExecutionAccepted', data: checked.data }];
}

/**
 * Allowed in every state: whether a retry should attach at all is the matching rule's call
 * (DESIGN.md §5); this only records that it did, and what the retry was answered from.
 */
export function attachRetry(command: AttachRetry, state: KnownExecutionState): ExecutionEvent[] {
  const { correlation, agentProcess, clientIdempotencyKey, run } = command.data;
  return [
    {
      type: 'RetryAttached',
      data: {
        executionId: state.facts.executionId,
        correlation,
        agentProcess,
        clientIdempotencyKey,
        stateAtAttach: state.status,
        attachedAt: nowIso(command),
        run: run ?? null,
      },
    },
  ];
}
