import type { ActorLimits } from '@onceport/config';
import { type AppendGuard, type Queryable, type CommandHandler } from '@onceport/event-store';
import type { ActorLimitsSource } from './actor-limits.port';
import { CallRateLimiter } from './call-rate-limiter';
import { InFlightExecutions, type Reservation } from './in-flight-executions';
import { RateLimitedError, TooManyInFlightError } from './limit-errors';
import { countLimitRefusal } from '../metrics/intake-metrics';

/** Thrown inside the accepting transaction to roll it back: the actor is at its in-flight cap. */
export class InFlightCapReached extends Error {
  constructor(readonly inFlight: number) {
    super(`at the in-flight cap (${inFlight})`);
    this.name = 'InFlightCapReached';
  }
}

/**
 * The per-actor limits of one intake process, for MCP `tools/call` and REST `POST /v1/executions`
 * alike: every call takes a token first (nothing read or written yet), and only a call that would
 * create an execution takes an in-flight place (a retry that attaches takes none).
 */
export class IntakeLimits {
  private readonly rate: CallRateLimiter;
  private readonly inFlight: InFlightExecutions;

  constructor(
    private readonly source: ActorLimitsSource,
    db: Queryable,
    commands: Pick<CommandHandler, 'load'>,
    clock: () => number = Date.now,
  ) {
    this.rate = new CallRateLimiter(clock);
    this.inFlight = new InFlightExecutions(db, commands);
  }

  limitsOf(actor: string): ActorLimits {
    return this.source.limitsOf(actor);
  }

  /** Throws `RateLimitedError` when the actor's bucket is empty. */
  admitCall(actor: string): void {
    try {
      this.rate.admit(actor, this.limitsOf(actor));
    } catch (error) {
      if (error instanceof RateLimitedError) countLimitRefusal('rate_limited');
      throw error;
    }
  }

  /** An in-flight place for `executionId` at one random pick, as the guard of its acceptance's appends (refused: use `reserve`). */
  placeGuard(actor: string, executionId: string, now: Date): AppendGuard {
    return this.inFlight.randomSlotGuard(actor, executionId, this.limitsOf(actor).maxInFlight, now);
  }

  /**
   * Inside the transaction that accepts `executionId`, before anything else of it is written to
   * matter: takes an in-flight place or throws {@link InFlightCapReached} so the transaction rolls
   * back whole (claim and events with it).
   */
  async reserve(tx: Queryable, actor: string, executionId: string, now: Date): Promise<void> {
    const reservation: Reservation = await this.inFlight.reserve(tx, actor, executionId, this.limitsOf(actor).maxInFlight, now);
    if (!reservation.reserved) throw new InFlightCapReached(reservation.inFlight);
  }

  /**
   * After a refused reservation: frees the places of settled executions. Returns normally when a
   * new attempt may succeed; throws `TooManyInFlightError` when the actor is still at the cap, or
   * at once when this call released already (`stillInFlight`: the count it was refused with again).
   */
  async releaseOrRefuse(actor: string, stillInFlight: number | null): Promise<void> {
    const limits = this.limitsOf(actor);
    const left = stillInFlight ?? (await this.inFlight.release(actor));
    if (stillInFlight === null && left < limits.maxInFlight) return;
    countLimitRefusal('too_many_in_flight');
    throw new TooManyInFlightError(actor, limits, left);
  }
}
