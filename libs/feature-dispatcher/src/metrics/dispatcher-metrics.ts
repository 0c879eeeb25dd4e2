import type { ToolContract } from '@onceport/domain';
import { LATENCY_BUCKETS, countUnknownOutcome, processCounter, processHistogram, targetLabel, toolLabel } from '@onceport/service-kit';
import type { AttemptVerdict } from '../dispatch-execution/attempt-verdict';

/*
 * What the dispatcher observes, counted where it observes it. The target is the contract's origin,
 * SSH host or MCP upstream name — never a path, an argument or anything an agent wrote.
 */
const latency = processHistogram({
  name: 'onceport_dispatch_duration_seconds',
  help: 'Seconds one dispatch attempt spent reaching the target, by channel, target and outcome (observed, failed_before_send, unknown).',
  labelNames: ['channel', 'target', 'outcome'],
  buckets: LATENCY_BUCKETS,
});

const outcomes = processCounter({
  name: 'onceport_dispatch_outcomes_total',
  help: 'Dispatch attempts closed in the store, by tool, channel and outcome (succeeded, target_error, failed_before_send, unknown).',
  labelNames: ['tool', 'channel', 'outcome'],
});

export function observeDispatch(contract: ToolContract, verdict: AttemptVerdict, seconds: number): void {
  latency.observe({ channel: contract.channel, target: targetLabel(contract), outcome: verdict.kind }, seconds);
}

/** An attempt's outcome, once it is recorded (a superseded one is not: the stream moved on). */
export function countOutcome(contracts: ReadonlyMap<string, ToolContract>, tool: string, verdict: AttemptVerdict): void {
  const contract = contracts.get(tool);
  const label = toolLabel(contracts, tool);
  const outcome = verdict.kind === 'observed' ? (verdict.succeeded ? 'succeeded' : 'target_error') : verdict.kind;
  outcomes.inc({ tool: label, channel: contract?.channel ?? 'other', outcome });
  if (verdict.kind === 'unknown') countUnknownOutcome(label, 'dispatcher');
}
