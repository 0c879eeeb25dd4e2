import type { ExecutionStatus } from '@onceport/contracts';
import { type AppendGuard, type CommandHandler, type Queryable, executionStream } from '@onceport/event-store';

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

/** Free slots tried at random before the actor's calls take turns to find one (or learn there is none). */
const RANDOM_TRIES = 4;

export type Reservation = { readonly reserved: true } | { readonly reserved: false; readonly inFlight: number };

/**
 * Takes `slot` for the execution unless another row holds it (a row another transaction is
 * inserting for the same slot makes this wait for that one's outcome). Without the lock, also not
 * while the actor holds a slot at or past the cap (it was lowered): then only the counted path,
 * which counts every row, may admit. That check is the first such slot in index order, not NOT
 * EXISTS: the generic plan of a prepared NOT EXISTS scanned every actor's rows on each acceptance.
 */
const TAKE_SLOT = `
INSERT INTO onceport.intake_in_flight (actor, slot, execution_id, accepted_at)
SELECT $1, $2, $3, $4
 WHERE $6 OR (SELECT slot FROM onceport.intake_in_flight WHERE actor = $1 AND slot >= $5 ORDER BY slot LIMIT 1) IS NULL
ON CONFLICT (actor, slot) DO NOTHING
RETURNING slot`;

/** A free slot below the cap, if any (only on the counted path: its cost grows with the cap). */
const FREE_SLOT = `
SELECT s AS slot FROM generate_series(0, $2::int - 1) AS s
 WHERE NOT EXISTS (SELECT 1 FROM onceport.intake_in_flight WHERE actor = $1 AND slot = s)
 LIMIT 1`;

/**
 * Each actor's executions in flight, counted across every intake replica. Admission and release are
 * both exact against the event store:
 * - `reserve` runs inside the accepting transaction and takes one of the actor's `max_in_flight`
 *   numbered slots (unique per actor), so the cap holds by construction. A free slot picked at
 *   random costs one statement and waits for no other call of the actor; only when random picks
 *   keep meeting taken slots (the actor is near its cap) do its calls take turns on a per-actor
 *   advisory lock to count and find a free one. Refused or rolled back, the transaction leaves nothing.
 * - `release` (outside it, only when the count reached the cap) folds each held execution from the
 *   store and drops those that settled. Nothing has to run for a place to free up, and a place is
 *   never freed before the store says so.
 */
export class InFlightExecutions {
  constructor(
    private readonly db: Queryable,
    private readonly commands: Pick<CommandHandler, 'load'>,
    private readonly random: () => number = Math.random,
  ) {}

  /**
   * One random pick of a free slot, as the guard of the acceptance's appends (one statement for
   * the place and the events; see `CommandAttempt.onlyIf`). A taken slot refuses: then `reserve`.
   */
  randomSlotGuard(actor: string, executionId: string, maxInFlight: number, now: Date): AppendGuard {
    return { text: TAKE_SLOT, values: [actor, Math.floor(this.random() * maxInFlight), executionId, now, maxInFlight, false] };
  }

  async reserve(tx: Queryable, actor: string, executionId: string, maxInFlight: number, now: Date): Promise<Reservation> {
    const take = async (slot: number, counted: boolean): Promise<boolean> =>
      (await tx.query(TAKE_SLOT, [actor, slot, executionId, now, maxInFlight, counted])).rowCount === 1;
    for (let i = 0; i < RANDOM_TRIES; i++) {
      // No savepoint needed: a taken slot does nothing, it does not fail the transaction.
      if (await take(Math.floor(this.random() * maxInFlight), false)) return { reserved: true };
    }
    await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [IN_FLIGHT_LOCK_SPACE, actor]);
    const counted = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM onceport.intake_in_flight WHERE actor = $1', [actor]);
    const inFlight = counted.rows[0]?.n ?? 0;
    if (inFlight >= maxInFlight) return { reserved: false, inFlight };
    const free = await tx.query<{ slot: number }>(FREE_SLOT, [actor, maxInFlight]);
    const slot = free.rows[0]?.slot;
    // Under the lock and below the cap as counted, every row included: no guard needed. The free slot
    // may have gone to a random pick meanwhile: then refuse as at the cap (the caller releases and tries again).
    if (slot === undefined || !(await take(slot, true))) return { reserved: false, inFlight: Math.max(inFlight, maxInFlight) };
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
