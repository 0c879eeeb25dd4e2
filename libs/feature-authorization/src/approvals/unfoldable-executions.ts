import { executionIdOfStream } from '@onceport/contracts';
import {
  type ClientPool,
  type CommandHandler,
  type EventStore,
  EventQuarantine,
  boundedErrorText,
  executionStream,
  unfoldableEvent,
} from '@onceport/event-store';
import { type Log } from '../shared/log';

/** The approval desk's name in the quarantine (`GET /v1/admin/quarantine?subscriber=approvals`). */
export const APPROVALS_SUBSCRIBER = 'approvals';

/**
 * An execution the approval desk cannot fold — an event in its stream no schema of ours reads,
 * written by a buggy or newer writer — costs only itself: the list and the expiry sweep skip it and
 * go on. The event the fold stops at is counted in the quarantine under `approvals`, like any
 * subscriber's poison event: a warn line per skip until the configured attempts, then the
 * quarantine's own line, `onceport_events_quarantined_total{subscriber="approvals"}` and an entry
 * an operator lists, retries (the expiry sweep folds the execution again) or releases.
 */
export class UnfoldableExecutions {
  private readonly quarantine: EventQuarantine;

  constructor(
    pool: ClientPool,
    private readonly store: Pick<EventStore, 'readStream'>,
    private readonly commands: CommandHandler,
    private readonly log: Log,
  ) {
    this.quarantine = new EventQuarantine(pool, APPROVALS_SUBSCRIBER, { log: (level, message, fields) => log(level, message, fields) });
  }

  /** Logs and counts one skip of `executionId` (`doing`: what was skipped); never throws, the item stays skipped either way. */
  async skipped(executionId: string, doing: string, error: unknown): Promise<void> {
    const fields = { executionId, doing, error: boundedErrorText(error) };
    try {
      const poison = await unfoldableEvent(this.store, executionStream(executionId));
      // The stream folds now: the failure was not the stream's (an outage, a race); the next pass looks again.
      if (!poison) return this.log('warn', 'approval skipped this time: its execution could not be read', fields);
      const verdict = await this.quarantine.failed(poison.event, poison.error);
      // Once quarantined, the quarantine's line, metric and entry say it: no line per request or pass after that.
      if (verdict === 'retry')
        this.log('warn', 'approval skipped: its execution cannot be folded', {
          ...fields,
          eventId: poison.event.eventId,
          eventType: poison.event.type,
        });
    } catch (recordError) {
      this.log('warn', 'approval skipped: its execution could not be read, nor recorded in the quarantine', {
        ...fields,
        recordError: boundedErrorText(recordError),
      });
    }
  }

  /** Folds again the executions an operator asked to retry (their entries resolve once they fold); returns how many were tried. */
  retryRequested(): Promise<number> {
    return this.quarantine.runRetries(async (event) => {
      const executionId = executionIdOfStream(event.streamId);
      if (executionId === null) throw new Error(`not an execution stream: ${event.streamId.slice(0, 100)}`);
      await this.commands.load(executionStream(executionId));
    });
  }
}
