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
 * How long the picks of an actor whose random pick met a taken place stay out of merged statements:
 * near its cap most picks meet one, and a merged statement fails whole on any of them (then goes
 * again in halves), where each pick alone costs one statement.
 */
const CROWDED_MS = 10_000;
/** The actors remembered as crowded at most (the oldest mark goes first). */
const CROWDED_ACTORS_KEPT = 10_000;

/**
 * The per-actor limits of one intake process, for MCP `tools/call` and REST `POST /v1/executions`
 * alike: every call takes a token first (nothing read or written yet), and only a call that would
 * create an execution takes an in-flight place (a retry that attaches takes none).
 */
export class IntakeLimits {
  private readonly rate: CallRateLimiter;
  private readonly inFlight: InFlightExecutions;
  /** Until when each crowded actor's picks go alone (see CROWDED_MS). */
  private readonly crowdedUntil = new Map<string, number>();

  constructor(
    private readonly source: ActorLimitsSource,
    db: Queryable,
    commands: Pick<CommandHandler, 'load'>,
    private readonly clock: () => number = Date.now,
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
    return this.inFlight.randomSlotGuard(actor, executionId, this.limitsOf(actor).maxInFlight, now, !this.crowded(actor));
  }

  /** The actor's random pick met a taken place: its next picks go alone for a while (see CROWDED_MS). */
  pickRefused(actor: string): void {
    this.crowdedUntil.delete(actor);
    this.crowdedUntil.set(actor, this.clock() + CROWDED_MS);
    if (this.crowdedUntil.size > CROWDED_ACTORS_KEPT) this.crowdedUntil.delete(this.crowdedUntil.keys().next().value as string);
  }

  private crowded(actor: string): boolean {
    const until = this.crowdedUntil.get(actor);
    if (until === undefined) return false;
    if (until > this.clock()) return true;
    this.crowdedUntil.delete(actor);
    return false;
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
