import { processCounter } from '@onceport/event-store';

/** Who found an outcome unknown: a closed set (the dispatcher after sending, the reconciler when a lease ran out). */
export type UnknownDetectedBy = 'dispatcher' | 'reconciler';

const unknownOutcomes = processCounter({
  name: 'onceport_outcomes_unknown_total',
  help: 'Executions whose outcome became unknown (OutcomeUnknown), by tool and who found out (dispatcher: timeout or reset after sending; reconciler: a dispatcher lease ran out).',
  labelNames: ['tool', 'detected_by'],
});

/**
 * One OutcomeUnknown appended by this process: shared here because two services write that fact.
 * `tool` must already be a label (see `toolLabel`).
 */
export function countUnknownOutcome(tool: string, detectedBy: UnknownDetectedBy): void {
  unknownOutcomes.inc({ tool, detected_by: detectedBy });
}
