import { setTimeout as sleep } from 'node:timers/promises';
import type { ExecutionEventEnvelope } from '@onceport/contracts';
import { IllegalTransitionError } from '@onceport/domain';
import type { SecretScrubber } from '../secrets/secret-scrubber';
import type { AttemptVerdict } from './attempt-verdict';
import { type RecordableVerdict, outcomeCommand } from './outcome-command';
import type { RetryPolicy } from './retry-policy';
import {
  executionStream,
  referenceFor,
  type EventCause,
  type CommandHandler,
  type LoadedExecution,
  type ResultStore,
} from '@onceport/event-store';

/** Tries of a write that failed for a reason other than the execution's rules (a database hiccup). */
const WRITE_TRIES = 5;

export interface OutcomeRecorderDeps {
  readonly commands: CommandHandler;
  readonly results: ResultStore;
  readonly policy: RetryPolicy;
  readonly secrets: SecretScrubber;
  /** Called after each append, so delivery publishes it now rather than at its next poll. */
  readonly onAppended: () => void;
}

export type RecordedOutcome =
  /** `event` is null when the stream already held this outcome (a repeated write). */
  | { readonly kind: 'recorded'; readonly event: ExecutionEventEnvelope | null; readonly retryable: boolean }
  /** The stream moved on before we wrote (e.g. the reconciler took over an expired lease). */
  | { readonly kind: 'superseded'; readonly reason: string };

/**
 * Closes an attempt in the stream. Once bytes may have left, losing the outcome costs a probe (or a
 * human), so database trouble is retried a few times; the deciders make a repeated write harmless.
 */
export class OutcomeRecorder {
  constructor(private readonly deps: OutcomeRecorderDeps) {}

  /**
   * `known`: the stream as this dispatcher appended DispatchStarted to it. The outcome is decided on
   * it without reading the stream again; had anyone appended since, the append conflicts and the
   * stream is read and the outcome decided again.
   */
  async record(
    executionId: string,
    attempt: number,
    verdict: AttemptVerdict,
    context: EventCause,
    known?: LoadedExecution,
  ): Promise<RecordedOutcome> {
    const { recordable, body } = this.recordable(verdict);
    const stream = executionStream(executionId);
    try {
      const appended = await persistently(() => {
        let decideOn = known;
        // The answer's bytes and the event naming them commit together, in one statement: one commit,
        // and one round trip, between the target's answer and the outcome on record.
        return this.deps.commands.transact(async (tx) => {
          const loaded = decideOn ?? (await tx.load(stream));
          // As appended DispatchStarted to it on the first try; read again after a conflict.
          decideOn = undefined;
          const events = tx.decide(stream, loaded, outcomeCommand(recordable, attempt, loaded.events, this.deps.policy, tx.now()), context);
          if (events.length > 0 && body && recordable.kind === 'observed') {
            const reference = recordable.result;
            tx.onlyIf(this.deps.results.writeGuard(reference, body));
          }
          return events;
        });
      });
      this.deps.onAppended();
      const event = appended[0] ?? null;
      return { kind: 'recorded', event, retryable: event?.type === 'DispatchFailedBeforeSend' && event.data.retryable };
    } catch (error) {
      if (error instanceof IllegalTransitionError) return { kind: 'superseded', reason: error.message };
      throw error;
    }
  }

  /** What the outcome records; an observed answer's bytes are written with the event, under the reference made here. */
  private recordable(verdict: AttemptVerdict): { recordable: RecordableVerdict; body: Buffer | null } {
    switch (verdict.kind) {
      case 'observed': {
        const result = referenceFor(verdict.body, verdict.contentType);
        return { recordable: { kind: 'observed', status: verdict.status, succeeded: verdict.succeeded, result }, body: verdict.body };
      }
      case 'failed_before_send':
        return { recordable: { ...verdict, reason: this.deps.secrets.scrub(verdict.reason) }, body: null };
      case 'unknown':
        return { recordable: { ...verdict, reason: this.deps.secrets.scrub(verdict.reason) }, body: null };
      default: {
        const _exhaustive: never = verdict;
        return _exhaustive;
      }
    }
  }
}

async function persistently<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (error instanceof IllegalTransitionError || attempt >= WRITE_TRIES) throw error;
      await sleep(100 * 2 ** attempt);
    }
  }
}
