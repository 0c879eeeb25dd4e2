import { executionStreamId } from '@onceport/contracts';
import { IllegalTransitionError } from '@onceport/domain';
import { ProjectionRunner } from '@onceport/event-store';
import { executionMatchesProjection } from '@onceport/read-models';
import type { OnceportRuntime } from '@onceport/runtime';
import type { SettleExecutionHandler } from '../settle-execution/settle-execution.handler';
import { expiredWindows, unsettledExecutions, waitingForAService } from './sweep-queries';

export interface SweeperSettings {
  readonly intervalMs: number;
  /** An execution waiting this long for its next service gets its last event delivered again. */
  readonly redeliverAfterMs: number;
  readonly batch: number;
}

type Log = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

/**
 * The backstop that reads the store, not the broker: it keeps the executions read model up to
 * date, settles executions left dispatched or unknown (a dead dispatcher, a lost OutcomeUnknown),
 * expires correlation windows, and delivers again the last event of an execution nobody acted on.
 */
export class Sweeper {
  private readonly projection: ProjectionRunner;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly runtime: OnceportRuntime,
    private readonly settle: SettleExecutionHandler,
    private readonly settings: SweeperSettings,
    private readonly log: Log,
  ) {
    this.projection = new ProjectionRunner(runtime.pool, executionMatchesProjection, { onError: (error) => log('warn', 'projection error', { error: String(error) }) });
  }

  start(): void {
    this.projection.start();
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.projection.stop();
  }

  /** One full pass; also what tests call to drive it deterministically. */
  async sweepOnce(): Promise<void> {
    await this.projection.catchUp();
    for (const id of await unsettledExecutions(this.runtime.pool, this.settings.batch)) {
      await this.guard(id, () => this.settle.settle(id, { causationId: `sweep:${id}` }));
    }
    for (const id of await expiredWindows(this.runtime.pool, this.settings.batch)) {
      await this.guard(id, () => this.runtime.executions.handle(id, (_loaded, now) => ({ type: 'ExpireCorrelation', data: {}, metadata: { now } }), { causationId: `sweep:${id}`, actor: 'svc:reconciler' }));
    }
    if (this.runtime.delivery.kind === 'jetstream') {
      for (const id of await waitingForAService(this.runtime.pool, this.settings.batch)) await this.guard(id, () => this.redeliverIfStale(id));
    }
  }

  private async redeliverIfStale(executionId: string): Promise<void> {
    const events = await this.runtime.store.readStream(executionStreamId(executionId));
    const last = events[events.length - 1];
    if (!last || Date.now() - last.recordedAt.getTime() < this.settings.redeliverAfterMs) return;
    this.log('warn', 'redelivering the last event of an execution nobody acted on', { executionId, event: last.type, ageMs: Date.now() - last.recordedAt.getTime() });
    await this.runtime.delivery.redeliver(last);
  }

  private async guard(executionId: string, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      // Someone else moved the execution on (or it was not ready): the next pass looks again.
      if (error instanceof IllegalTransitionError) return;
      this.log('warn', 'sweep step failed', { executionId, error: String(error) });
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweepOnce()
        .catch((error: unknown) => this.log('warn', 'sweep failed', { error: String(error) }))
        .finally(() => this.schedule(this.settings.intervalMs));
    }, delayMs);
  }
}
