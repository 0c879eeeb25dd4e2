import type { McpToolContract } from '@onceport/domain';
import type { McpTaskProbe } from '@onceport/target-channels';
import type { MarkerStep } from './marker-step';

/** The unknown outcome whose upstream task is read. */
export interface TaskUnknown {
  readonly taskId: string;
  /** When the outcome became unknown (the correlation window is counted from it). */
  readonly detectedAt: string;
}

/**
 * Pure: one reading of an MCP upstream's task → the step (the same shapes as an SSH marker reading).
 *
 * - `completed` → settled by the result it carries: `completed`, or `failed` when the result is a
 *   tool error (`isError`), the result stored as a dispatch's would be.
 * - `failed` → settled `failed`, never `not_applied`: the upstream accepted the call and its tool ran
 *   and failed — an outcome observed late, like a remote command's non-zero exit (DESIGN.md §4: a
 *   failure after the target started is not "nothing happened", and not_applied would send it again).
 * - `working` → look again later, without spending a probe, while the correlation window lasts; past
 *   it each reading is a probe that could not tell (so a task that never ends reaches a human).
 * - `input_required` → a human: Onceport has no input to give an upstream mid-task.
 * - `cancelled` (never by Onceport) → a human: it may have acted before it was cancelled.
 * - the upstream does not know the task, or cannot be reached → a probe that could not tell; a task
 *   forgotten by its upstream is never evidence that the call was not applied.
 */
export function taskStep(probe: McpTaskProbe, contract: McpToolContract, unknown: TaskUnknown, nowMs: number): MarkerStep {
  const where = `task ${unknown.taskId} on upstream ${contract.target.upstream.name}`;
  switch (probe.kind) {
    case 'unreachable':
      return record(`${where} could not be read: ${probe.reason}`);
    case 'not_found':
      return record(`${where} is unknown to the upstream (expired or forgotten): it cannot tell whether the call was applied`);
    case 'task':
      break;
    default: {
      const _exhaustive: never = probe;
      return _exhaustive;
    }
  }
  const message = probe.statusMessage ? ` (${probe.statusMessage})` : '';
  switch (probe.status) {
    case 'working': {
      const windowEndsMs = Date.parse(unknown.detectedAt) + contract.correlationWindowMs;
      if (nowMs < windowEndsMs) return { kind: 'wait', why: `${where} is still working${message}` };
      return record(`${where} is still working${message}, past the tool's correlation window`);
    }
    case 'input_required':
      return review(`${where} is waiting for input${message}, which Onceport cannot give`);
    case 'cancelled':
      return review(`${where} was cancelled upstream${message}, not by Onceport: it may have acted before`);
    case 'completed':
    case 'failed': {
      if (!probe.document) return record(`${where} ended ${probe.status}, but without a readable result`);
      const failed = probe.status === 'failed' || probe.document.isError;
      const how = probe.status === 'failed' ? 'failed: the tool ran and failed' : failed ? 'completed with a tool error' : 'completed';
      return {
        kind: 'settle',
        settlement: failed ? 'failed' : 'completed',
        reason: `${where} ${how}; its result is kept`,
        exitStatus: failed ? 1 : 0,
        body: probe.document.body,
        contentType: probe.document.contentType,
      };
    }
    default: {
      const _exhaustive: never = probe.status;
      return _exhaustive;
    }
  }
}

function record(detail: string): MarkerStep {
  return { kind: 'record', verdict: 'cant_tell', detail, thenSettle: null };
}

function review(detail: string): MarkerStep {
  return { kind: 'record', verdict: 'cant_tell', detail, thenSettle: { settlement: 'needs_review', reason: `${detail}: a human decides` } };
}
