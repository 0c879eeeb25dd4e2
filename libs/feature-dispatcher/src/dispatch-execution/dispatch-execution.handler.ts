import { setTimeout as sleep } from 'node:timers/promises';
import { parseEvent } from '@onceport/contracts';
import type { DeliveryContext, WireEvent } from '@onceport/messaging';
import { type AttemptDeps, type AttemptReport, runAttempt } from './dispatch-attempt';
import { type DispatchCause, type DispatchTrigger, dispatchTriggerOf } from './dispatch-trigger';
import { DispatcherStoppingError } from './dispatcher-stopping.error';
import { type RetryPolicy, waitBeforeNextTry } from './retry-policy';
import { executionStream, vaultStream } from '@onceport/event-store';

export interface DispatchExecutionDeps extends AttemptDeps {
  readonly policy: RetryPolicy;
  readonly clock?: () => Date;
}

/** What one trigger led to; `trigger` is null for an event that asks for no dispatch. */
export interface DispatchSummary {
  readonly trigger: DispatchTrigger | null;
  readonly attempts: readonly AttemptReport[];
}

/**
 * Turns a dispatch trigger into attempts. The trigger is only a hint: the execution's stream decides
 * (nothing happens unless it is `authorized`), so redeliveries, stale triggers and replicas racing
 * for one execution are all harmless. A failure before send is tried again here, after the backoff
 * the stream says is owed, until the round's retries are used up. An unknown outcome is never tried
 * again: that is the reconciler's to settle.
 *
 * @example @ConsumeEvents(subjects, options) async onTrigger(@Payload() event, @Ctx() context) { await handler.handle(event, context); }
 */
export class DispatchExecutionHandler {
  private readonly stopping = new AbortController();

  constructor(private readonly deps: DispatchExecutionDeps) {}

  async handle(event: WireEvent, delivery: Pick<DeliveryContext, 'traceparent' | 'tracestate'>): Promise<DispatchSummary> {
    if (this.stopping.signal.aborted) throw new DispatcherStoppingError(null);
    // Upcast on read: a trigger written under an older schema version is handled like a current one.
    const envelope = parseEvent({ type: event.type, schemaVersion: event.schemaVersion, data: event.data, metadata: event.metadata });
    const trigger = dispatchTriggerOf(envelope, delivery);
    if (trigger === null) return { trigger, attempts: [] };
    return { trigger, attempts: await this.dispatch(trigger.executionId, trigger.cause) };
  }

  /**
   * Attempts in flight finish and are recorded; no new one starts. A trigger whose execution is
   * still waiting is refused (see DispatcherStoppingError), so its message is delivered again.
   */
  drain(): void {
    this.stopping.abort();
  }

  private async dispatch(executionId: string, firstCause: DispatchCause): Promise<AttemptReport[]> {
    const attempts: AttemptReport[] = [];
    let cause = firstCause;
    for (;;) {
      if (this.stopping.signal.aborted) throw new DispatcherStoppingError(executionId);
      // The execution and the vault in one round trip: the vault read with the execution is the one
      // its first try at DispatchStarted checks (a conflict reads both again).
      const [loaded, vault] = await this.deps.commands.loadAll([executionStream(executionId), vaultStream()]);
      if (loaded.state.status !== 'authorized') return attempts;
      const wait = waitBeforeNextTry(this.deps.policy, loaded.events, this.now());
      if (wait > 0) {
        await this.pause(wait);
        continue; // reload: another replica may have taken the retry meanwhile
      }
      const report = await runAttempt(this.deps, { execution: loaded, vault: vault.state }, loaded.state.facts, cause);
      attempts.push(report);
      if (report.kind !== 'closed' || !report.retryable || report.closingEventId === null) return attempts;
      // The next try is caused by this one's failure and stays in the trigger's trace.
      cause = { ...cause, eventId: report.closingEventId };
    }
  }

  /** Sleeps, or returns early when the process starts stopping (the loop then refuses the trigger). */
  private async pause(ms: number): Promise<void> {
    try {
      await sleep(ms, undefined, { signal: this.stopping.signal });
    } catch (error) {
      if (!this.stopping.signal.aborted) throw error;
    }
  }

  private now(): Date {
    return this.deps.clock?.() ?? new Date();
  }
}
