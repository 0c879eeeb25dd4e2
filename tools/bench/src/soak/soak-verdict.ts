import { type LatencySummary, summarize } from '../stats/summary';
import type { IntentRecord } from './open-loop';

/** Where an execution may rest once faults have healed; anything else after the drain is stuck. */
const AT_REST: ReadonlySet<string> = new Set([
  'completed',
  'completed_result_not_delivered',
  'failed',
  'denied',
  'needs_review',
  'reverted',
  'expired',
]);

/** What the store says of one execution (see gateway-harness readExecutionOutcomes). */
export interface StoredExecution {
  readonly status: string;
  readonly acceptedAt: number;
  readonly settledAt: number | null;
}

/** One request the target applied: the deployment's project (the intent) and the Idempotency-Key it carried. */
export interface AppliedEffect {
  readonly project: string;
  readonly idempotencyKey: string | null;
}

export interface SoakVerdict {
  readonly intents: number;
  readonly answered: number;
  /** Given up by the load generator; whether the gateway applied it anyway is in `appliedUnanswered`. */
  readonly unanswered: number;
  readonly appliedUnanswered: number;
  /** Retries of one intent that intake named with more than one execution id. */
  readonly splitIdentities: number;
  readonly executions: number;
  readonly effects: number;
  /** Intents applied more than once, plus execution ids the target saw more than once. */
  readonly duplicates: number;
  /** Execution ids intake answered with that the store does not hold, plus completed executions the target never saw. */
  readonly lost: number;
  /** Executions not at rest after the drain. */
  readonly stuck: number;
  readonly needsReview: number;
  readonly states: Record<string, number>;
  /** Accepted → settled, over the executions this run's intents made (ms). */
  readonly settle: LatencySummary;
  /** Intent started → answered, retries included (ms). */
  readonly answer: LatencySummary;
  readonly retriedIntents: number;
}

/** The checks of the soak, over what the agents saw, what the store holds and what the target applied. */
export function soakVerdict(
  records: readonly IntentRecord[],
  executions: ReadonlyMap<string, StoredExecution>,
  effects: readonly AppliedEffect[],
): SoakVerdict {
  const perIntent = countBy(effects.map((e) => e.project));
  const perKey = countBy(effects.flatMap((e) => (e.idempotencyKey ? [e.idempotencyKey] : [])));
  const duplicates = [...perIntent.values(), ...perKey.values()].filter((n) => n > 1).length;
  const ours = new Set<string>();
  let lost = 0;
  for (const record of records)
    for (const id of record.executionIds) {
      ours.add(id);
      const stored = executions.get(id);
      if (!stored) lost += 1;
      else if (stored.status === 'completed' && !perKey.has(id)) lost += 1;
    }
  const states: Record<string, number> = {};
  let stuck = 0;
  for (const execution of executions.values()) {
    states[execution.status] = (states[execution.status] ?? 0) + 1;
    if (!AT_REST.has(execution.status)) stuck += 1;
  }
  const answered = records.filter((r) => r.answeredAt !== null);
  const unanswered = records.filter((r) => r.answeredAt === null);
  const settleTimes = [...ours].flatMap((id) => {
    const e = executions.get(id);
    return e?.settledAt ? [e.settledAt - e.acceptedAt] : [];
  });
  return {
    intents: records.length,
    answered: answered.length,
    unanswered: unanswered.length,
    appliedUnanswered: unanswered.filter((r) => perIntent.has(r.project)).length,
    splitIdentities: records.filter((r) => r.executionIds.size > 1).length,
    executions: executions.size,
    effects: effects.length,
    duplicates,
    lost,
    stuck,
    needsReview: states['needs_review'] ?? 0,
    states,
    settle: summarize(settleTimes),
    answer: summarize(answered.map((r) => (r.answeredAt ?? 0) - r.startedAt)),
    retriedIntents: records.filter((r) => r.attempts > 1).length,
  };
}

function countBy(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}
