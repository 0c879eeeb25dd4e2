import { type ExecutionEvent, type RequestCorrelation } from '@onceport/contracts';
import { type ExpireCorrelation, type RecordDelivery, type RevertExecution } from './execution-command';
import { type Delivery, type KnownExecutionState } from './execution-state';
import { nowIso, reached, refuse, refuseTransition } from './guards';

/**
 * Deliveries are facts that can repeat: every replay to a retry or a ledger hit is its own
 * delivery. Only the identical record (same transport, replay flag and correlation as the last one)
 * is taken as a redelivery and ignored.
 */
export function recordDelivery(command: RecordDelivery, state: KnownExecutionState): ExecutionEvent[] {
  const { transport, replay, correlation } = command.data;
  const last = state.progress.lastDelivery;
  if (last !== null && sameDelivery(last, command.data)) return [];
  if (state.status !== 'completed_result_not_delivered' && state.status !== 'completed' && state.status !== 'failed') {
    return refuseTransition(command, state, 'there is no result to deliver');
  }
  if (state.progress.delivered && !replay) {
    return refuse('already_delivered', command, state, 'The result was already delivered; any later delivery is a replay.');
  }
  return [
    {
      type: 'ResultDelivered',
      data: { executionId: state.facts.executionId, transport, replay, correlation, deliveredAt: nowIso(command) },
    },
  ];
}

export function revertExecution(command: RevertExecution, state: KnownExecutionState): ExecutionEvent[] {
  if (state.status === 'reverted') return [];
  if (
    state.status !== 'completed' &&
    state.status !== 'completed_result_not_delivered' &&
    state.status !== 'failed' &&
    state.status !== 'needs_review'
  ) {
    return refuseTransition(command, state, 'only a finished (or reviewed) execution can be reverted');
  }
  const { by, reason } = command.data;
  return [{ type: 'ExecutionReverted', data: { executionId: state.facts.executionId, by, reason, revertedAt: nowIso(command) } }];
}

/**
 * Closes the correlation window on an unfinished or undelivered execution. An execution whose
 * outcome is still open (dispatched, unknown) must be settled first: expiring it would let a retry
 * start a second send. A completed one stays while its ledger retention runs, so a retry still gets a
 * ledger hit instead of a new send.
 */
export function expireCorrelation(command: ExpireCorrelation, state: KnownExecutionState): ExecutionEvent[] {
  if (state.status === 'expired') return [];
  if (state.status === 'dispatched' || state.status === 'dispatched_unknown')
    return refuseTransition(command, state, 'settle the outcome first');
  if (
    state.status !== 'accepted' &&
    state.status !== 'awaiting_approval' &&
    state.status !== 'authorized' &&
    state.status !== 'completed_result_not_delivered'
  ) {
    return refuseTransition(command, state);
  }
  const { correlationWindowEndsAt, ledgerRetentionEndsAt } = state.facts;
  if (!reached(command, correlationWindowEndsAt))
    return refuse('window_still_open', command, state, `The correlation window runs until ${correlationWindowEndsAt}.`);
  if (state.status === 'completed_result_not_delivered' && ledgerRetentionEndsAt !== null && !reached(command, ledgerRetentionEndsAt)) {
    return refuse('ledger_retention_running', command, state, `The ledger answers for this execution until ${ledgerRetentionEndsAt}.`);
  }
  return [{ type: 'CorrelationExpired', data: { executionId: state.facts.executionId, expiredAt: nowIso(command) } }];
}

function sameDelivery(last: Delivery, next: { transport: string; replay: boolean; correlation: RequestCorrelation }): boolean {
  return last.transport === next.transport && last.replay === next.replay && sameCorrelation(last.correlation, next.correlation);
}

function sameCorrelation(a: RequestCorrelation, b: RequestCorrelation): boolean {
  return (
    a.transport === b.transport &&
    (a.jsonRpcId ?? null) === (b.jsonRpcId ?? null) &&
    (a.sessionId ?? null) === (b.sessionId ?? null) &&
    (a.requestId ?? null) === (b.requestId ?? null)
  );
}
