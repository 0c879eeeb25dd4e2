import type { ExecutionEventEnvelope } from '@onceport/contracts';
import type { ExecutionState } from '@onceport/domain';
import { WAIT_BUCKETS, countUnknownOutcome, processCounter, processHistogram, toolLabel } from '@onceport/service-kit';

/*
 * What the reconciler decides, counted from what it appended: probes and their verdicts,
 * settlements and how long the outcome was unknown, and unknown outcomes it declared itself (a
 * dispatcher's lease ran out). Labels: contract tool names (else `other`) and closed sets.
 */
const probes = processCounter({
  name: 'onceport_probes_total',
  help: 'Probes of unknown outcomes recorded (ProbeAttempted), by tool and verdict (applied, not_applied, cant_tell).',
  labelNames: ['tool', 'verdict'],
});

const settlements = processCounter({
  name: 'onceport_settlements_total',
  help: 'Unknown outcomes settled (OutcomeSettled), by tool and settlement (completed, not_applied, needs_review, failed).',
  labelNames: ['tool', 'settlement'],
});

const settlementTime = processHistogram({
  name: 'onceport_settlement_seconds',
  help: 'Seconds from OutcomeUnknown to OutcomeSettled, by tool and settlement.',
  labelNames: ['tool', 'settlement'],
  buckets: WAIT_BUCKETS,
});

export interface AppendedToExecution {
  readonly state: ExecutionState;
  readonly events: readonly ExecutionEventEnvelope[];
  readonly appended: readonly ExecutionEventEnvelope[];
}

export function countSettlementEvents(contracts: ReadonlyMap<string, unknown>, handled: AppendedToExecution): void {
  if (handled.state.status === 'none') return;
  const tool = toolLabel(contracts, handled.state.facts.tool);
  for (const event of handled.appended) {
    if (event.type === 'OutcomeUnknown') countUnknownOutcome(tool, 'reconciler');
    if (event.type === 'ProbeAttempted') probes.inc({ tool, verdict: event.data.verdict });
    if (event.type !== 'OutcomeSettled') continue;
    const { settlement, settledAt } = event.data;
    settlements.inc({ tool, settlement });
    const detectedAt = unknownSince(handled.events, event.data.attempt);
    if (detectedAt) settlementTime.observe({ tool, settlement }, Math.max(0, (Date.parse(settledAt) - Date.parse(detectedAt)) / 1000));
  }
}

/** When the attempt's outcome became unknown (the OutcomeUnknown the settlement answers). */
function unknownSince(events: readonly ExecutionEventEnvelope[], attempt: number): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event?.type === 'OutcomeUnknown' && event.data.attempt === attempt) return event.data.detectedAt;
  }
  return null;
}
