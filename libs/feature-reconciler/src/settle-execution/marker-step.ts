import type { ProbeVerdict, Settlement } from '@onceport/contracts';
import type { SshToolContract } from '@onceport/domain';
import { type MarkerProbe, outputDocument } from '@onceport/target-channels';

/** What the reconciler does with one reading of an SSH marker (DESIGN.md §9). */
export type MarkerStep =
  /** Append RecordProbe; `thenSettle` follows it when the reading alone decides the outcome. */
  | {
      readonly kind: 'record';
      readonly verdict: ProbeVerdict;
      readonly detail: string;
      readonly thenSettle: { readonly settlement: Settlement; readonly reason: string } | null;
    }
  /** The command ended: settle by its exit status, with its output stored as the result. */
  | {
      readonly kind: 'settle';
      readonly settlement: 'completed' | 'failed';
      readonly reason: string;
      readonly exitStatus: number;
      readonly body: Buffer;
      /** How the body is stored; JSON (the marker's output document) when not given. */
      readonly contentType?: string;
    }
  /** Still running within its timeout: nothing to record, look again later. */
  | { readonly kind: 'wait'; readonly why: string };

/**
 * Pure: a marker reading → the step. Completed settles by exit status (0 → completed, else failed);
 * no marker in an existing marker directory → not applied (the plan then dispatches again: the
 * host refuses a second start); a missing marker directory is unreadable, never "no marker";
 * running → wait, until it runs past the contract's timeout, when each reading counts as a probe
 * that could not tell (so a command that never ends reaches a human); unreadable → needs_review
 * at once, because a marker that cannot be trusted will not become trustworthy by waiting.
 */
export function markerStep(probe: MarkerProbe, contract: SshToolContract, executionId: string, nowMs: number): MarkerStep {
  if (probe.kind === 'unreachable') return record('cant_tell', `the marker could not be read: ${probe.reason}`);
  const where = `marker ${contract.target.markerDir}/${executionId} on ${contract.target.host}`;
  const { report } = probe;
  switch (report.state) {
    case 'absent':
      return record('not_applied', `no ${where}: the command never started`);
    case 'running': {
      const startedMs = report.startedAt ? Date.parse(report.startedAt) : Number.NaN;
      const overdueAtMs = startedMs + contract.target.timeoutMs;
      if (!Number.isNaN(startedMs) && nowMs < overdueAtMs) return { kind: 'wait', why: `${where}: running since ${report.startedAt}` };
      return record(
        'cant_tell',
        `${where}: still running (since ${report.startedAt ?? 'an unknown time'}), past the contract's ${contract.target.timeoutMs} ms timeout`,
      );
    }
    case 'completed': {
      const settlement = report.exitStatus === 0 ? 'completed' : 'failed';
      return {
        kind: 'settle',
        settlement,
        reason: `${where}: the command ended with exit status ${report.exitStatus} (started ${report.startedAt ?? '?'}, finished ${report.finishedAt ?? '?'})`,
        exitStatus: report.exitStatus,
        body: outputDocument(report),
      };
    }
    case 'unreadable': {
      const detail =
        report.why === 'marker-dir-missing'
          ? `the marker directory ${contract.target.markerDir} is missing on ${contract.target.host} (marker-dir-missing): the program never reached the host, or the markers were wiped or moved and the command may have run`
          : `${where} cannot be trusted (${report.why})`;
      return {
        kind: 'record',
        verdict: 'cant_tell',
        detail,
        thenSettle: { settlement: 'needs_review', reason: `${detail}: a human must check the host` },
      };
    }
    default: {
      const _exhaustive: never = report;
      return _exhaustive;
    }
  }
}

function record(verdict: ProbeVerdict, detail: string): MarkerStep {
  return { kind: 'record', verdict, detail, thenSettle: null };
}
