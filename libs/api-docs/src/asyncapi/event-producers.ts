import { type ServiceName } from '../openapi/route-doc';

/**
 * Which services append each event (the decider runs where the command is issued). Said by hand:
 * producers are not declared anywhere the code could read them, so a new event fails the document
 * build until its author names who writes it here.
 */
export const EVENT_PRODUCERS: Readonly<Record<string, readonly ServiceName[]>> = {
  ExecutionAccepted: ['intake'],
  RetryAttached: ['intake'],
  ResultDelivered: ['intake'],
  ApprovalRequested: ['authorization'],
  ApprovalGranted: ['authorization'],
  ApprovalRejected: ['authorization'],
  ExecutionAuthorized: ['authorization'],
  // The ladder or an expired approval (authorization), a locked vault before a send (dispatcher), tasks/cancel (intake).
  ExecutionDenied: ['authorization', 'dispatcher', 'intake'],
  ExecutionReverted: ['authorization'],
  DispatchStarted: ['dispatcher'],
  DispatchFailedBeforeSend: ['dispatcher'],
  OutcomeObserved: ['dispatcher'],
  // A send without a verdict (dispatcher), an abandoned lease found by the sweep (reconciler).
  OutcomeUnknown: ['dispatcher', 'reconciler'],
  ProbeAttempted: ['reconciler'],
  OutcomeSettled: ['reconciler'],
  ReviewResolved: ['reconciler'],
  CorrelationExpired: ['reconciler'],
  IntentClaimed: ['intake'],
  IdempotencyKeyBound: ['intake'],
  RunOpened: ['intake'],
  RunAttemptStarted: ['intake'],
  VaultLocked: ['authorization'],
  VaultUnlocked: ['authorization'],
  SessionGranted: ['authorization'],
  CampaignGranted: ['authorization'],
  CampaignUseCounted: ['authorization'],
};

/** The producers of an event, or an error naming the table to fill in. */
export function producersOf(type: string): readonly ServiceName[] {
  const producers = EVENT_PRODUCERS[type];
  if (!producers) throw new Error(`api-docs: say which services append ${type} in libs/api-docs/src/asyncapi/event-producers.ts`);
  return producers;
}
