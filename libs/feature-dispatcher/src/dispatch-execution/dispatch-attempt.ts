import { FAULT_POINTS, faultPoint } from '@onceport/fault-points';
import { type Span, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import {
  type ExecutionCommand,
  type ExecutionFacts,
  IllegalTransitionError,
  type ToolContract,
  type VaultState,
  vaultLockedReason,
} from '@onceport/domain';
import { contextFromTraceparent, currentTraceContext, inSpan } from '@onceport/service-kit';
import type { DispatcherLog } from '../logging/dispatcher-log';
import { countOutcome } from '../metrics/dispatcher-metrics';
import type { AttemptOutcomeKind, AttemptVerdict } from './attempt-verdict';
import type { DispatchCause } from './dispatch-trigger';
import type { OutcomeRecorder, RecordedOutcome } from './outcome-recorder';
import type { TargetSender } from './target-sender';
import { executionStream, type EventCause, type CommandHandler, type LoadedExecution } from '@onceport/event-store';

/** Who the dispatcher's events are written by. */
export const DISPATCHER_ACTOR = 'svc:dispatcher';

export interface AttemptDeps {
  readonly commands: CommandHandler;
  /** The vault as its stream says it is now, read fresh: checked again after a lost race. */
  readonly vault: () => Promise<VaultState>;
  readonly sender: TargetSender;
  readonly recorder: OutcomeRecorder;
  readonly tracer: Tracer;
  /** The loaded contracts: only their names become metric labels. */
  readonly contracts: ReadonlyMap<string, ToolContract>;
  readonly dispatcherId: string;
  readonly leaseMsFor: (tool: string) => number;
  readonly onAppended: () => void;
  readonly log: DispatcherLog;
}

export type AttemptReport =
  /** Another dispatcher started first, or the execution is no longer authorized: nothing was sent. */
  | { readonly kind: 'not_started' }
  /** The vault was locked: the execution was denied (vault_locked) instead, nothing was sent. */
  | { readonly kind: 'denied'; readonly code: 'vault_locked'; readonly reason: string }
  | {
      readonly kind: 'closed';
      readonly attempt: number;
      readonly outcome: AttemptOutcomeKind;
      readonly retryable: boolean;
      /** The event that closed the attempt; the cause of the next try. */
      readonly closingEventId: string | null;
    }
  /** Sent, but the stream had moved on before the outcome could be written (see the log line). */
  | { readonly kind: 'superseded'; readonly attempt: number; readonly outcome: AttemptOutcomeKind };

/**
 * One dispatch attempt, in its own span (`dispatch <tool>`, a child of the trace the trigger
 * carried): DispatchStarted is appended — durably, before any byte leaves — and only the writer who
 * got it appended sends; the outcome then closes the attempt. Every event carries this span's
 * trace context, and so does the request to the target.
 */
/** What the caller just read, together: the execution (`authorized`, with these facts) and the vault. */
export interface ReadForAttempt {
  readonly execution: LoadedExecution;
  readonly vault: VaultState;
}

/** `read`: the execution and the vault as the caller just read them; a conflict reads both again. */
export function runAttempt(deps: AttemptDeps, read: ReadForAttempt, facts: ExecutionFacts, cause: DispatchCause): Promise<AttemptReport> {
  const attributes = { 'onceport.execution_id': facts.executionId, 'onceport.tool': facts.tool };
  return inSpan(
    deps.tracer,
    `dispatch ${facts.tool}`,
    contextFromTraceparent(cause.traceparent, cause.tracestate),
    attributes,
    async (span) => {
      const trace = currentTraceContext();
      const causedBy = (causationId: string): EventCause => ({ causationId, actor: DISPATCHER_ACTOR, ...trace });
      const started = await startDispatch(deps, read, facts, causedBy(cause.eventId));
      if (started !== null && 'denied' in started) {
        span.setAttribute('onceport.outcome', 'vault_locked');
        deps.log('warn', 'dispatch not started: the vault is locked, the execution is denied', {
          executionId: facts.executionId,
          tool: facts.tool,
          reason: started.denied,
        });
        return { kind: 'denied', code: 'vault_locked', reason: started.denied };
      }
      if (started === null) {
        span.setAttribute('onceport.outcome', 'not_started');
        deps.log('debug', 'dispatch not started: another dispatcher went first, or the execution moved on', {
          executionId: facts.executionId,
          tool: facts.tool,
        });
        return { kind: 'not_started' };
      }
      span.setAttribute('onceport.attempt', started.attempt);
      faultPoint(FAULT_POINTS.dispatcherAfterDispatchStarted);
      const traceHeaders: Record<string, string> = {};
      if (trace.traceparent) traceHeaders['traceparent'] = trace.traceparent;
      if (trace.tracestate) traceHeaders['tracestate'] = trace.tracestate;
      const verdict = await deps.sender.send({
        executionId: facts.executionId,
        tool: facts.tool,
        arguments: facts.arguments,
        traceHeaders,
      });
      faultPoint(FAULT_POINTS.dispatcherAfterSend);
      const recorded = await deps.recorder.record(facts.executionId, started.attempt, verdict, causedBy(started.eventId), started.stream);
      if (recorded.kind === 'recorded' && recorded.event) countOutcome(deps.contracts, facts.tool, verdict);
      annotate(span, verdict, recorded);
      logAttempt(deps.log, facts, started.attempt, verdict, recorded);
      if (recorded.kind === 'superseded') return { kind: 'superseded', attempt: started.attempt, outcome: verdict.kind };
      return {
        kind: 'closed',
        attempt: started.attempt,
        outcome: verdict.kind,
        retryable: recorded.retryable,
        closingEventId: recorded.event?.metadata.eventId ?? null,
      };
    },
  );
}

/**
 * The attempt number, DispatchStarted's id and the stream as it appended it when this call won the
 * right to send; the denial's reason when the vault was locked; null when another writer went first
 * or the execution moved on.
 */
async function startDispatch(
  deps: AttemptDeps,
  read: ReadForAttempt,
  facts: ExecutionFacts,
  context: EventCause,
): Promise<{ attempt: number; eventId: string; stream: LoadedExecution } | { denied: string } | null> {
  const leaseMs = deps.leaseMsFor(facts.tool);
  // The first try decides on what was read together; every try after a conflict reads the vault again.
  let vaultAsRead: VaultState | null = read.vault;
  try {
    const handled = await deps.commands.handle(
      executionStream(facts.executionId),
      (loaded, now) => {
        const vault = vaultAsRead;
        vaultAsRead = null;
        return startOrDeny(deps, leaseMs, loaded, now, vault);
      },
      context,
      { known: read.execution },
    );
    const denied = handled.appended.find((event) => event.type === 'ExecutionDenied');
    if (denied?.type === 'ExecutionDenied') {
      deps.onAppended();
      return { denied: denied.data.reason };
    }
    const started = handled.appended.find((event) => event.type === 'DispatchStarted');
    if (started?.type !== 'DispatchStarted') return null;
    deps.onAppended();
    return { attempt: started.data.attempt, eventId: started.metadata.eventId, stream: handled };
  } catch (error) {
    if (error instanceof IllegalTransitionError) return null;
    throw error;
  }
}

/**
 * StartDispatch, or DenyExecution(vault_locked) when the vault is locked. Called by the repository
 * on the execution as read (with the vault, in the same round trip) and again after every conflict,
 * reading the vault again then: it is read with or after the execution, right before the append
 * that lets the send happen, never earlier. Only an
 * `authorized` execution gets here: one whose attempt already started (dispatched, or unknown) is
 * left alone, the lock does not lose what may already have reached the target. A re-dispatch (after
 * a not_applied settlement, or a retry after a failure before send) is denied the same way: nothing
 * of it was applied, and a locked vault means no new send.
 *
 * The lock and DispatchStarted are on different streams, so nothing fences one against the other:
 * a send that read "unlocked" a moment before the lock committed still goes out. That window is
 * only the time between this read and the append; nothing is cached or read earlier.
 */
async function startOrDeny(
  deps: AttemptDeps,
  leaseMs: number,
  loaded: LoadedExecution,
  now: Date,
  vaultAsRead: VaultState | null,
): Promise<ExecutionCommand | null> {
  // Declining (null) rather than letting the decider refuse: losing the race is the normal case
  // for all but one replica, not an error.
  if (loaded.state.status !== 'authorized') return null;
  const vault = vaultAsRead ?? (await deps.vault());
  if (vault.status === 'locked')
    return { type: 'DenyExecution', data: { code: 'vault_locked', reason: vaultLockedReason(vault) }, metadata: { now } };
  return { type: 'StartDispatch', data: { dispatcherId: deps.dispatcherId, leaseMs }, metadata: { now } };
}

function annotate(span: Span, verdict: AttemptVerdict, recorded: RecordedOutcome): void {
  span.setAttribute('onceport.outcome', verdict.kind);
  if (verdict.kind === 'observed') span.setAttribute('http.response.status_code', verdict.status);
  if (recorded.kind === 'recorded') span.setAttribute('onceport.retryable', recorded.retryable);
  else span.setAttribute('onceport.superseded', true);
  const fine = verdict.kind === 'observed' && verdict.succeeded;
  // The status message is the outcome kind only: reasons are in the events, already scrubbed.
  if (!fine)
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: verdict.kind === 'observed' ? `target answered ${verdict.status}` : verdict.kind,
    });
}

function logAttempt(log: DispatcherLog, facts: ExecutionFacts, attempt: number, verdict: AttemptVerdict, recorded: RecordedOutcome): void {
  const fields = {
    executionId: facts.executionId,
    tool: facts.tool,
    attempt,
    outcome: verdict.kind,
    targetStatus: verdict.kind === 'observed' ? verdict.status : null,
    reason: verdict.kind === 'observed' ? null : verdict.reason,
  };
  if (recorded.kind === 'superseded')
    log('warn', 'dispatch outcome not recorded: the execution moved on', { ...fields, why: recorded.reason });
  else log(verdict.kind === 'unknown' ? 'warn' : 'info', 'dispatch attempt closed', { ...fields, retryable: recorded.retryable });
}
