import type { ExecutionStatus } from '@onceport/contracts';
import { type CommandHandler, type Queryable, executionStream } from '@onceport/event-store';

/**
 * Accepted and not yet settled: the states in which an execution still holds a place. A human's
 * pending approval holds one (the actor asked for it); an outcome that is known, or handed to an
 * operator for review, does not.
 */
export const IN_FLIGHT_STATES: ReadonlySet<ExecutionStatus> = new Set<ExecutionStatus>([
  'accepted',
  'awaiting_approval',
  'authorized',
  'dispatched',
  'dispatched_unknown',
]);

/** Our key space for `pg_advisory_xact_lock(int, int)`: the two-int form never meets the one-bigint locks of the store. */
const IN_FLIGHT_LOCK_SPACE = 0x0f1f;

/** How many held executions are read at once while releasing. */
const RELEASE_READS = 8;

export type Reservation = { readonly reserved: true } | { readonly reserved: false; readonly inFlight: number };

/**
 * Each actor's executions in flight, counted across every intake replica. Admission and release are
 * both exact against the event store, at the cost of taking turns per actor:
 * - `reserve` runs inside the accepting transaction: a per-actor advisory lock makes the actor's new
 *   executions take turns (on any replica), the rows are counted, and the new one is added. Refused
 *   or rolled back, the transaction leaves nothing.
 * - `release` (outside it, only when the count reached the cap) folds each held execution from the
 *   store and drops those that settled. Nothing has to run for a place to free up, and a place is
 *   never freed before the store says so.
 */
export class InFlightExecutions {
  constructor(
    private readonly db: Queryable,
    private readonly commands: Pick<CommandHandler, 'load'>,
  ) {}

  async reserve(tx: Queryable, actor: string, executionId: string, maxInFlight: number, now: Date): Promise<Reservation> {
    await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [IN_FLIGHT_LOCK_SPACE, actor]);
    const counted = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM onceport.intake_in_flight WHERE actor = $1', [actor]);
    const inFlight = counted.rows[0]?.n ?? 0;
    if (inFlight >= maxInFlight) return { reserved: false, inFlight };
    await tx.query('INSERT INTO onceport.intake_in_flight (actor, execution_id, accepted_at) VALUES ($1, $2, $3)', [
      actor,
      executionId,
      now,
    ]);
    return { reserved: true };
  }

  /** Drops the actor's rows whose executions are no longer in flight; returns how many are left. */
  async release(actor: string): Promise<number> {
    const held = await this.db.query<{ execution_id: string }>('SELECT execution_id FROM onceport.intake_in_flight WHERE actor = $1', [
      actor,
    ]);
    const ids = held.rows.map((row) => row.execution_id);
    const settled: string[] = [];
    for (let i = 0; i < ids.length; i += RELEASE_READS) {
      const batch = ids.slice(i, i + RELEASE_READS);
      const states = await Promise.all(batch.map(async (id) => (await this.commands.load(executionStream(id))).state.status));
      batch.forEach((id, j) => {
        const status = states[j];
        // 'none' cannot happen (the row commits with the acceptance); if it did, it holds nothing.
        if (status === 'none' || !IN_FLIGHT_STATES.has(status as ExecutionStatus)) settled.push(id);
      });
    }
    if (settled.length > 0)
      await this.db.query('DELETE FROM onceport.intake_in_flight WHERE actor = $1 AND execution_id = ANY($2)', [actor, settled]);
    return ids.length - settled.length;
  }
}
