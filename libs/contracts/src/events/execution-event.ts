import { type ApprovalGranted, ApprovalGrantedEvent } from './approval-granted.event';
import { type ApprovalRejected, ApprovalRejectedEvent } from './approval-rejected.event';
import { type ApprovalRequested, ApprovalRequestedEvent } from './approval-requested.event';
import { type CorrelationExpired, CorrelationExpiredEvent } from './correlation-expired.event';
import { type DispatchFailedBeforeSend, DispatchFailedBeforeSendEvent } from './dispatch-failed-before-send.event';
import { type DispatchStarted, DispatchStartedEvent } from './dispatch-started.event';
import { type EventEnvelope } from './event';
import { type ExecutionAccepted, ExecutionAcceptedEvent } from './execution-accepted.event';
import { type ExecutionAuthorized, ExecutionAuthorizedEvent } from './execution-authorized.event';
import { type ExecutionDenied, ExecutionDeniedEvent } from './execution-denied.event';
import { type ExecutionReverted, ExecutionRevertedEvent } from './execution-reverted.event';
import { type OutcomeObserved, OutcomeObservedEvent } from './outcome-observed.event';
import { type OutcomeSettled, OutcomeSettledEvent } from './outcome-settled.event';
import { type OutcomeUnknown, OutcomeUnknownEvent } from './outcome-unknown.event';
import { type ProbeAttempted, ProbeAttemptedEvent } from './probe-attempted.event';
import { type ResultDelivered, ResultDeliveredEvent } from './result-delivered.event';
import { type RetryAttached, RetryAttachedEvent } from './retry-attached.event';
import { type ReviewResolved, ReviewResolvedEvent } from './review-resolved.event';

/** Every event of an execution stream (DESIGN.md §4), as deciders emit and fold them. */
export type ExecutionEvent =
  | ExecutionAccepted
  | ApprovalRequested
  | ApprovalGranted
  | ApprovalRejected
  | ExecutionAuthorized
  | ExecutionDenied
  | RetryAttached
  | DispatchStarted
  | DispatchFailedBeforeSend
  | OutcomeObserved
  | OutcomeUnknown
  | ProbeAttempted
  | OutcomeSettled
  | ResultDelivered
  | ReviewResolved
  | ExecutionReverted
  | CorrelationExpired;

export type ExecutionEventType = ExecutionEvent['type'];

/** An execution event as stored and carried on NATS. */
export type ExecutionEventEnvelope = EventEnvelope<ExecutionEvent>;

/** The current definition of every execution event, by type: schema, version and subjects. */
export const executionEventDefinitions = {
  ExecutionAccepted: ExecutionAcceptedEvent,
  ApprovalRequested: ApprovalRequestedEvent,
  ApprovalGranted: ApprovalGrantedEvent,
  ApprovalRejected: ApprovalRejectedEvent,
  ExecutionAuthorized: ExecutionAuthorizedEvent,
  ExecutionDenied: ExecutionDeniedEvent,
  RetryAttached: RetryAttachedEvent,
  DispatchStarted: DispatchStartedEvent,
  DispatchFailedBeforeSend: DispatchFailedBeforeSendEvent,
  OutcomeObserved: OutcomeObservedEvent,
  OutcomeUnknown: OutcomeUnknownEvent,
  ProbeAttempted: ProbeAttemptedEvent,
  OutcomeSettled: OutcomeSettledEvent,
  ResultDelivered: ResultDeliveredEvent,
  ReviewResolved: ReviewResolvedEvent,
  ExecutionReverted: ExecutionRevertedEvent,
  CorrelationExpired: CorrelationExpiredEvent,
} as const satisfies { [Type in ExecutionEventType]: { readonly type: Type } };

export const EXECUTION_EVENT_TYPES = Object.keys(executionEventDefinitions) as readonly ExecutionEventType[];

/**
 * Execution events no service acts on as they arrive (no durable consumer takes them, no waiting
 * call is woken by them): they stay in the store, read there by whoever needs them, and are not
 * sent on JetStream, which carries the events services act on. A consumer or listener asking for
 * one is refused at its start (see `@onceport/messaging`).
 */
export const EVENTS_OFF_JETSTREAM: ReadonlySet<string> = new Set<ExecutionEventType>([
  'DispatchStarted',
  'RetryAttached',
  'ResultDelivered',
]);
