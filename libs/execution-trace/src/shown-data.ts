import type { ExecutionEventEnvelope } from '@onceport/contracts';

/**
 * The part of an event's data a trace may print. ExecutionAccepted carries every argument —
 * sensitive ones (a card token: sealed, or clear in events stored before sealing) and model-written
 * text — so its `arguments` never leave the audit export, not even sealed; the canonical `record`
 * stands for them (sensitive values there are HMACs). Every event
 * type is named here so that a new one, or a new raw-argument-bearing field, is a decision made on
 * purpose rather than printed by default.
 */
export function shownData(event: ExecutionEventEnvelope): Record<string, unknown> {
  switch (event.type) {
    case 'ExecutionAccepted': {
      const { arguments: _raw, ...shown } = event.data;
      return { ...shown, arguments_withheld: Object.keys(_raw).sort() };
    }
    case 'ApprovalRequested':
    case 'ApprovalGranted':
    case 'ApprovalRejected':
    case 'ExecutionAuthorized':
    case 'ExecutionDenied':
    case 'RetryAttached':
    case 'DispatchStarted':
    case 'DispatchFailedBeforeSend':
    case 'OutcomeObserved':
    case 'OutcomeUnknown':
    case 'ProbeAttempted':
    case 'OutcomeSettled':
    case 'ResultDelivered':
    case 'ReviewResolved':
    case 'ExecutionReverted':
    case 'CorrelationExpired':
      // No raw argument in these: ids, times, verdicts, people's reasons, result references.
      return { ...event.data };
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
}
