import type { HttpOutcome, McpOutcome, SshOutcome } from '@onceport/target-channels';

/**
 * What one try to reach the target came to, before it is recorded. The three kinds are the three
 * events the dispatcher may close an attempt with (DESIGN.md §4).
 */
export type AttemptVerdict =
  | {
      readonly kind: 'observed';
      readonly status: number;
      readonly succeeded: boolean;
      /** Already redacted by the channel; stored by reference, never put into an event. */
      readonly body: Buffer;
      readonly contentType: string | null;
    }
  | { readonly kind: 'failed_before_send'; readonly reason: string; readonly retryable: boolean }
  /** `upstreamTaskId`: an MCP upstream's unfinished task, which the reconciler polls. */
  | { readonly kind: 'unknown'; readonly reason: string; readonly upstreamTaskId?: string };

export type AttemptOutcomeKind = AttemptVerdict['kind'];

/** A refusal decided by the dispatcher itself: no byte left, and sending again would fail the same way. */
export function refusedBeforeSend(reason: string): AttemptVerdict {
  return { kind: 'failed_before_send', reason, retryable: false };
}

/** Only a 2xx counts as the effect having succeeded (a per-contract rule can come later). */
export function isSuccessStatus(status: number): boolean {
  return status >= 200 && status < 300;
}

export function verdictOf(outcome: HttpOutcome): AttemptVerdict {
  switch (outcome.kind) {
    case 'observed':
      return {
        kind: 'observed',
        status: outcome.status,
        succeeded: isSuccessStatus(outcome.status),
        body: outcome.body,
        contentType: outcome.contentType,
      };
    case 'failed_before_send':
      return { kind: 'failed_before_send', reason: `${outcome.code}: ${outcome.reason}`, retryable: outcome.retryable };
    case 'unknown': {
      const when = outcome.stage === 'request_written' ? 'after the request was written' : 'after the response had started';
      return { kind: 'unknown', reason: `${outcome.code} ${when}: ${outcome.reason}` };
    }
    default: {
      const _exhaustive: never = outcome;
      return _exhaustive;
    }
  }
}

/** A remote command: its exit status is the target status, and only 0 counts as success. */
export function sshVerdictOf(outcome: SshOutcome): AttemptVerdict {
  switch (outcome.kind) {
    case 'observed':
      return {
        kind: 'observed',
        status: outcome.exitStatus,
        succeeded: outcome.exitStatus === 0,
        body: outcome.body,
        contentType: outcome.contentType,
      };
    case 'failed_before_send':
      return { kind: 'failed_before_send', reason: `${outcome.code}: ${outcome.reason}`, retryable: outcome.retryable };
    case 'unknown':
      return { kind: 'unknown', reason: `${outcome.code}: ${outcome.reason}` };
    default: {
      const _exhaustive: never = outcome;
      return _exhaustive;
    }
  }
}

/**
 * An MCP tool call: 0 when the upstream returned a result, 1 when it returned a tool error
 * (`isError`) — both observed outcomes, stored as the upstream sent them.
 */
export function mcpVerdictOf(outcome: McpOutcome): AttemptVerdict {
  switch (outcome.kind) {
    case 'observed':
      return {
        kind: 'observed',
        status: outcome.isError ? 1 : 0,
        succeeded: !outcome.isError,
        body: outcome.body,
        contentType: outcome.contentType,
      };
    case 'failed_before_send':
      return { kind: 'failed_before_send', reason: `${outcome.code}: ${outcome.reason}`, retryable: outcome.retryable };
    case 'unknown': {
      const reason = `${outcome.code}: ${outcome.reason}`;
      return outcome.upstreamTaskId === undefined
        ? { kind: 'unknown', reason }
        : { kind: 'unknown', reason, upstreamTaskId: outcome.upstreamTaskId };
    }
    default: {
      const _exhaustive: never = outcome;
      return _exhaustive;
    }
  }
}
