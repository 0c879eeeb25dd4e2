import type { EntityManager } from '@mikro-orm/postgresql';
import { EVENTS_OFF_JETSTREAM, executionStreamId } from '@onceport/contracts';
import { IllegalTransitionError } from '@onceport/domain';
import { type CommandHandler, type EventStore, ProjectionRunner, executionStream } from '@onceport/event-store';
import type { EventDelivery } from '@onceport/messaging';
import type { Pool } from 'pg';
import { executionMatchesProjection } from '@onceport/read-models';
import type { SettleExecutionHandler } from '../settle-execution/settle-execution.handler';
import { claimDueExecutions, expiredWindows, forgetSettledChecks, releaseWithNextCheck, waitingForAService } from './sweep-queries';

export interface SweeperSettings {
  readonly intervalMs: number;
  /** An execution waiting this long for its next service gets its last event delivered again. */
  readonly redeliverAfterMs: number;
  readonly batch: number;
  /** Executions settled at once (each may be waiting on a probe). */
  readonly concurrency: number;
  /** How long a claimed execution is kept from the other replicas; longer than one settle takes. */
  readonly claimMs: number;
  /** This replica's name on its claims. */
  readonly replicaId: string;
}

/** The process's ports the sweep stands on (the service kit's, by token in the module). */
export interface SweeperPorts {
  readonly pool: Pool;
  readonly store: EventStore;
  readonly commands: CommandHandler;
  readonly delivery: EventDelivery;
}

const PROJECTION_BATCH_INTERVAL_MS = 250;

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
    private readonly ports: SweeperPorts,
    /** The read model and the reconcile checks (MikroORM); the projection itself writes on the pg pool. */
    private readonly em: EntityManager,
    private readonly settle: SettleExecutionHandler,
    private readonly settings: SweeperSettings,
    private readonly log: Log,
  ) {
    this.projection = new ProjectionRunner(ports.pool, executionMatchesProjection, {
      // Nobody waits on this read model live (every query of it catches up first): one batch per
      // interval, not one per execution, saves a transaction and four statements for each.
      batchIntervalMs: PROJECTION_BATCH_INTERVAL_MS,
      onError: (error) => log('warn', 'projection error', { error: String(error) }),
      log: (level, message, fields) => log(level, message, fields),
    });
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

  /**
   * One full pass; also what tests call to drive it deterministically. Each step runs on its own:
   * a projection stuck on an event, or a failing query, is logged and the other steps still run
   * (settling reads the store itself, so a stale read model only delays what it finds).
   */
  async sweepOnce(): Promise<void> {
    await this.step('projection catch-up', () => this.projection.catchUp());
    await this.step('settle', () => this.settleDue());
    await this.step('expire correlation windows', () => this.expireWindows());
    if (this.ports.delivery.kind === 'jetstream') await this.step('redeliver', () => this.redeliverStale());
  }

  private async expireWindows(): Promise<void> {
    for (const id of await expiredWindows(this.em, this.settings.batch)) {
      await this.guard(id, () =>
        this.ports.commands.handle(executionStream(id), (_loaded, now) => ({ type: 'ExpireCorrelation', data: {}, metadata: { now } }), {
          causationId: `sweep:${id}`,
          actor: 'svc:reconciler',
        }),
      );
    }
  }

  private async redeliverStale(): Promise<void> {
    for (const id of await waitingForAService(this.em, this.settings.batch)) await this.guard(id, () => this.redeliverIfStale(id));
  }

  private async step(name: string, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.log('warn', 'sweep step failed', { step: name, error: String(error) });
    }
  }

  /**
   * Settles what is due with `concurrency` workers, each claiming one execution at a time: a claim
   * is a short transaction, so a slow probe never holds a claim on executions nobody works on yet,
   * and the other replicas take those meanwhile.
   */
  private async settleDue(): Promise<void> {
    await forgetSettledChecks(this.em);
    let budget = this.settings.batch;
    const worker = async (): Promise<void> => {
      while (budget > 0 && !this.stopped) {
        budget -= 1;
        const [claimed] = await claimDueExecutions(this.em, {
          limit: 1,
          claimMs: this.settings.claimMs,
          claimant: this.settings.replicaId,
        });
        if (!claimed) return;
        await this.guard(claimed, () => this.settleClaimed(claimed));
      }
    };
    await Promise.all(Array.from({ length: this.settings.concurrency }, worker));
  }

  private async settleClaimed(executionId: string): Promise<void> {
    const outcome = await this.settle.settle(executionId, { causationId: `sweep:${executionId}` });
    // Changed elsewhere: another path (the OutcomeUnknown consumer, a replica) wrote first and may
    // have stopped at a backoff nobody else comes back for. Released for the next pass, which plans
    // from the new state — keeping the claim would stall settlement for a whole claim time.
    // Settled or moved on: not again before the claim would run out, unless the read model shows a
    // newer version first (it may still show the old one until the projection catches up).
    const atMs =
      outcome.status === 'changed_elsewhere'
        ? Date.now()
        : outcome.done === 'wait' && outcome.nextCheckAtMs !== null
          ? outcome.nextCheckAtMs
          : Date.now() + this.settings.claimMs;
    await releaseWithNextCheck(this.em, executionId, this.settings.replicaId, outcome.version, atMs);
  }

  private async redeliverIfStale(executionId: string): Promise<void> {
    const events = await this.ports.store.readStream(executionStreamId(executionId));
    // The newest event a service acts on: a retry attaching since (never sent on JetStream) is no
    // sign that anyone acted, and redelivered it would wake nobody.
    const last = events.findLast((event) => !EVENTS_OFF_JETSTREAM.has(event.type));
    if (!last || Date.now() - last.recordedAt.getTime() < this.settings.redeliverAfterMs) return;
    this.log('warn', 'redelivering the last event of an execution nobody acted on', {
      executionId,
      event: last.type,
      ageMs: Date.now() - last.recordedAt.getTime(),
    });
    await this.ports.delivery.redeliver(last);
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
