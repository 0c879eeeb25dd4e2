import type { StoredEvent } from '../event';
import type { Queryable } from '../queryable';
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

/**
 * Sets the default number of attempts for every quarantine made afterwards in this process: the
 * runtime calls it once at start with the validated `ONCEPORT_QUARANTINE_AFTER_ATTEMPTS`, so the
 * projection runners a feature makes with just a pool follow the operator's setting too.
 */
export function configureQuarantineDefaults(settings: { readonly afterAttempts: number }): void {
  processDefaultAfterAttempts = assertAfterAttempts(settings.afterAttempts);
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
    private readonly db: Queryable,
    readonly subscriber: string,
    options: EventQuarantineOptions = {},
  ) {
    if (subscriber.length < 1 || subscriber.length > 200) throw new RangeError(`quarantine: subscriber name must be 1-200 characters, got ${subscriber.length}`);
    this.afterAttempts = assertAfterAttempts(options.afterAttempts ?? processDefaultAfterAttempts);
    this.log = options.log ?? stderrLog;
  }

  /**
   * Records one failed attempt at `event` (the caller's transaction, if any, is already rolled
   * back: this writes on its own). `retry`: try it again later; `skip`: it is quarantined (or was
   * released or resolved already), go on with the next event. Throws when the record cannot be
   * written: then nothing is skipped.
   */
  async failed(event: QuarantineSubject, error: unknown): Promise<FailureVerdict> {
    const counted = countsAgainstEvent(error) ? 1 : 0;
    const result = await this.db.query<{ status: QuarantineStatus; attempts: number; just_quarantined: boolean }>(
      `INSERT INTO onceport.event_quarantine AS q
         (subscriber, event_id, stream_id, global_position, event_type, status, attempts, last_error, quarantined_at)
       VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::int >= $8::int THEN 'quarantined' ELSE 'failing' END, $6, $7,
               CASE WHEN $6::int >= $8::int THEN now() END)
       ON CONFLICT (subscriber, event_id) DO UPDATE SET
         attempts = q.attempts + excluded.attempts,
         last_error = excluded.last_error,
         last_attempt_at = now(),
         status = CASE WHEN q.status = 'failing' AND q.attempts + excluded.attempts >= $8::int THEN 'quarantined' ELSE q.status END,
         quarantined_at = CASE WHEN q.status = 'failing' AND q.attempts + excluded.attempts >= $8::int THEN now() ELSE q.quarantined_at END
       RETURNING status, attempts, (status = 'quarantined' AND quarantined_at = now()) AS just_quarantined`,
      [this.subscriber, event.eventId, bounded(event.streamId), String(event.globalPosition), bounded(event.type), counted, boundedErrorText(error), this.afterAttempts],
    );
    const row = result.rows[0];
    if (!row) throw new Error(`quarantine: no row recorded for ${this.subscriber} ${event.eventId}`);
    if (row.just_quarantined) {
      countQuarantined(this.subscriber);
      this.log('warn', 'event quarantined', {
        subscriber: this.subscriber,
        eventId: event.eventId,
        eventType: bounded(event.type),
        streamId: bounded(event.streamId),
        attempts: row.attempts,
        error: boundedErrorText(error),
      });
    }
    return verdictOf(row.status);
  }

  /** The event applied after failing before: its count of failures starts over. */
  async succeeded(eventId: string): Promise<void> {
    await this.db.query(`DELETE FROM onceport.event_quarantine WHERE subscriber = $1 AND event_id = $2 AND status = 'failing'`, [this.subscriber, eventId]);
  }

  /**
   * Re-applies the events an operator asked to retry (the admin API may run in another process:
   * the owner takes the request here, on its next pass). Claims with SKIP LOCKED, so of several
   * replicas one takes each. An event that applies is `resolved`; one that fails again goes back
   * to `quarantined` with the new error. Returns how many were tried.
   */
  async runRetries(reapply: (event: StoredEvent) => Promise<void>, limit = 10): Promise<number> {
    const claimed = await this.db.query<StoredEventRow>(
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
        await this.db.query(
          `UPDATE onceport.event_quarantine SET status = 'quarantined', attempts = attempts + 1, last_error = $3, last_attempt_at = now()
           WHERE subscriber = $1 AND event_id = $2 AND status = 'retrying'`,
          [this.subscriber, event.eventId, boundedErrorText(error)],
        );
        this.log('warn', 'quarantined event retried and failed again', { subscriber: this.subscriber, eventId: event.eventId, eventType: bounded(event.type), error: boundedErrorText(error) });
        continue;
      }
      await this.db.query(
        `UPDATE onceport.event_quarantine SET status = 'resolved', closed_at = now(), closed_by = retry_requested_by, close_reason = 'retried: applied'
         WHERE subscriber = $1 AND event_id = $2 AND status = 'retrying'`,
        [this.subscriber, event.eventId],
      );
      this.log('info', 'quarantined event retried and applied', { subscriber: this.subscriber, eventId: event.eventId, eventType: bounded(event.type) });
    }
    return claimed.rows.length;
  }
}

function stderrLog(level: string, message: string, fields: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ level, message, ...fields, time: new Date().toISOString() })}\n`);
}
