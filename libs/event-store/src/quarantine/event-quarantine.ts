import type { StoredEvent } from '../event';
import { type ClientPool, inTransaction } from '../queryable';
import { STORED_EVENT_COLUMNS, rowToStoredEvent, type StoredEventRow } from '../stored-event-row';
import { countQuarantined } from './quarantine-metrics';
import {
  DEFAULT_QUARANTINE_AFTER_ATTEMPTS,
  type FailureVerdict,
  type QuarantineStatus,
  assertAfterAttempts,
  bounded,
  boundedErrorText,
  countsAgainstEvent,
  statusAfterFailure,
  verdictOf,
} from './quarantine-policy';

export type QuarantineLog = (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;

/** What the quarantine needs to know of an event: a stored event or a wire event's envelope. */
export interface QuarantineSubject {
  readonly eventId: string;
  readonly streamId: string;
  readonly globalPosition: bigint | string;
  readonly type: string;
}

export interface EventQuarantineOptions {
  /** Failed attempts before the event is skipped; default `ONCEPORT_QUARANTINE_AFTER_ATTEMPTS` as configured at start, else 5. */
  readonly afterAttempts?: number;
  readonly log?: QuarantineLog;
}

/** A claimed retry taken by the owner is free again after this long (its process died mid-retry). */
const RETRY_CLAIM_STALE_S = 300;

let processDefaultAfterAttempts = DEFAULT_QUARANTINE_AFTER_ATTEMPTS;
let processDefaultLog: QuarantineLog = stderrLog;

/**
 * Sets the defaults for every quarantine made afterwards in this process: the service kit calls it
 * once at start with the validated `ONCEPORT_QUARANTINE_AFTER_ATTEMPTS` and the service's logger,
 * so the projection runners a feature makes with just a pool follow the operator's setting and log
 * like the rest of the service (the bare stderr line is only for this lib used on its own).
 */
export function configureQuarantineDefaults(settings: { readonly afterAttempts?: number; readonly log?: QuarantineLog }): void {
  if (settings.afterAttempts !== undefined) processDefaultAfterAttempts = assertAfterAttempts(settings.afterAttempts);
  if (settings.log) processDefaultLog = settings.log;
}

/**
 * One subscriber's quarantine, shared by every place that applies events in order (the projection
 * runner, the store-tail consumers, the JetStream consumers): count an event's failures, say when
 * to stop retrying it (then log once, count it, skip it), and re-apply what an operator asked to
 * retry. The counts live in PostgreSQL, so they survive restarts and add up across replicas.
 *
 * @example const verdict = await quarantine.failed(event, error); // 'retry' | 'skip'
 */
export class EventQuarantine {
  readonly afterAttempts: number;
  private readonly log: QuarantineLog;

  constructor(
    private readonly pool: ClientPool,
    readonly subscriber: string,
    options: EventQuarantineOptions = {},
  ) {
    if (subscriber.length < 1 || subscriber.length > 200)
      throw new RangeError(`quarantine: subscriber name must be 1-200 characters, got ${subscriber.length}`);
    this.afterAttempts = assertAfterAttempts(options.afterAttempts ?? processDefaultAfterAttempts);
    this.log = options.log ?? processDefaultLog;
  }

  /**
   * Records one failed attempt at `event` (the caller's transaction, if any, is already rolled
   * back: this writes on its own). `retry`: try it again later; `skip`: it is quarantined (or was
   * released or resolved already), go on with the next event. Throws when the record cannot be
   * written: then nothing is skipped.
   */
  async failed(event: QuarantineSubject, error: unknown): Promise<FailureVerdict> {
    const counted = countsAgainstEvent(error) ? 1 : 0;
    const errorText = boundedErrorText(error);
    const outcome = await inTransaction(this.pool, async (tx) => {
      await tx.query(
        `INSERT INTO onceport.event_quarantine (subscriber, event_id, stream_id, global_position, event_type, status, attempts, last_error)
         VALUES ($1, $2, $3, $4, $5, 'failing', 0, $6) ON CONFLICT (subscriber, event_id) DO NOTHING`,
        [this.subscriber, event.eventId, bounded(event.streamId), String(event.globalPosition), bounded(event.type), errorText],
      );
      // Locked: replicas failing on the same event at once add up, and only one of them logs the quarantine.
      const current = await tx.query<{ status: QuarantineStatus; attempts: number }>(
        'SELECT status, attempts FROM onceport.event_quarantine WHERE subscriber = $1 AND event_id = $2 FOR UPDATE',
        [this.subscriber, event.eventId],
      );
      const row = current.rows[0];
      if (!row) throw new Error(`quarantine: no row recorded for ${this.subscriber} ${event.eventId}`);
      // Already out of the ordered flow (a replica that read it before the quarantine, a rebuild
      // reading it again): skipped as it is; its count stays the attempts that led to it.
      if (row.status !== 'failing') return { status: row.status, attempts: row.attempts, justQuarantined: false };
      const attempts = row.attempts + counted;
      const status = statusAfterFailure(row.status, attempts, this.afterAttempts);
      const justQuarantined = status === 'quarantined' && row.status === 'failing';
      await tx.query(
        `UPDATE onceport.event_quarantine SET attempts = $3, last_error = $4, last_attempt_at = now(), status = $5,
           quarantined_at = CASE WHEN $6::boolean THEN now() ELSE quarantined_at END
         WHERE subscriber = $1 AND event_id = $2`,
        [this.subscriber, event.eventId, attempts, errorText, status, justQuarantined],
      );
      return { status, attempts, justQuarantined };
    });
    if (outcome.justQuarantined) {
      countQuarantined(this.subscriber);
      this.log('warn', 'event quarantined', {
        subscriber: this.subscriber,
        eventId: event.eventId,
        eventType: bounded(event.type),
        streamId: bounded(event.streamId),
        attempts: outcome.attempts,
        error: errorText,
      });
    }
    return verdictOf(outcome.status);
  }

  /** The event applied after failing before: its count of failures starts over. */
  async succeeded(eventId: string): Promise<void> {
    await this.pool.query(`DELETE FROM onceport.event_quarantine WHERE subscriber = $1 AND event_id = $2 AND status = 'failing'`, [
      this.subscriber,
      eventId,
    ]);
  }

  /**
   * Re-applies the events an operator asked to retry (the admin API may run in another process:
   * the owner takes the request here, on its next pass). Claims with SKIP LOCKED, so of several
   * replicas one takes each. An event that applies is `resolved`; one that fails again goes back
   * to `quarantined` with the new error. Returns how many were tried.
   */
  async runRetries(reapply: (event: StoredEvent) => Promise<void>, limit = 10): Promise<number> {
    const claimed = await this.pool.query<StoredEventRow>(
      `WITH taken AS (
         UPDATE onceport.event_quarantine SET status = 'retrying', last_attempt_at = now()
         WHERE (subscriber, event_id) IN (
           SELECT subscriber, event_id FROM onceport.event_quarantine
           WHERE subscriber = $1 AND (status = 'retry_requested' OR (status = 'retrying' AND last_attempt_at < now() - make_interval(secs => $3)))
           ORDER BY global_position LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING event_id)
       SELECT ${STORED_EVENT_COLUMNS} FROM onceport.events WHERE event_id IN (SELECT event_id FROM taken) ORDER BY global_position`,
      [this.subscriber, limit, RETRY_CLAIM_STALE_S],
    );
    for (const event of claimed.rows.map(rowToStoredEvent)) {
      try {
        await reapply(event);
      } catch (error) {
        await this.pool.query(
          `UPDATE onceport.event_quarantine SET status = 'quarantined', attempts = attempts + 1, last_error = $3, last_attempt_at = now()
           WHERE subscriber = $1 AND event_id = $2 AND status = 'retrying'`,
          [this.subscriber, event.eventId, boundedErrorText(error)],
        );
        this.log('warn', 'quarantined event retried and failed again', {
          subscriber: this.subscriber,
          eventId: event.eventId,
          eventType: bounded(event.type),
          error: boundedErrorText(error),
        });
        continue;
      }
      await this.pool.query(
        `UPDATE onceport.event_quarantine SET status = 'resolved', closed_at = now(), closed_by = retry_requested_by, close_reason = 'retried: applied'
         WHERE subscriber = $1 AND event_id = $2 AND status = 'retrying'`,
        [this.subscriber, event.eventId],
      );
      this.log('info', 'quarantined event retried and applied', {
        subscriber: this.subscriber,
        eventId: event.eventId,
        eventType: bounded(event.type),
      });
    }
    return claimed.rows.length;
  }
}

function stderrLog(level: string, message: string, fields: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ level, message, ...fields, time: new Date().toISOString() })}\n`);
}
