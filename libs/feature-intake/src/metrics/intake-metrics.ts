import { processCounter, toolLabel } from '@onceport/service-kit';

/*
 * What intake decides, counted where it decides it: a call became a new execution, attached to the
 * execution of its intent, or was answered from the ledger; or a limit refused it. Labels are tool
 * names of the loaded contracts (else `other`) and closed sets — never an actor, a key or an id.
 */
const accepted = processCounter({
  name: 'onceport_executions_accepted_total',
  help: 'Tool calls that became a new execution (ExecutionAccepted), by tool and channel.',
  labelNames: ['tool', 'channel'],
});

const attached = processCounter({
  name: 'onceport_retries_attached_total',
  help: 'Calls that matched an unfinished or undelivered execution of the same intent and attached to it (no second effect).',
  labelNames: ['tool'],
});

const ledgerHits = processCounter({
  name: 'onceport_ledger_hits_total',
  help: 'Calls answered from a completed execution inside its ledger retention (replayed, nothing re-sent).',
  labelNames: ['tool'],
});

const refusals = processCounter({
  name: 'onceport_limit_refusals_total',
  help: 'Calls refused by a per-actor limit before anything was written: rate_limited or too_many_in_flight.',
  labelNames: ['limit'],
});

export type CallMatch = 'accepted' | 'attached' | 'ledger_hit';

/** One call's identity decision, after it was recorded. */
export function countCall(contracts: ReadonlyMap<string, unknown>, tool: string, channel: string, match: CallMatch): void {
  const label = toolLabel(contracts, tool);
  if (match === 'accepted') accepted.inc({ tool: label, channel });
  else if (match === 'attached') attached.inc({ tool: label });
  else ledgerHits.inc({ tool: label });
}

export function countLimitRefusal(limit: 'rate_limited' | 'too_many_in_flight'): void {
  refusals.inc({ limit });
}
