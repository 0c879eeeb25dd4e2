import type { Queryable } from '../queryable';
import { OPEN_STATUSES, type QuarantineStatus } from './quarantine-policy';

/** One quarantine entry as operators see it (the admin API's JSON). */
export interface QuarantineEntry {
  readonly subscriber: string;
  readonly event_id: string;
  readonly stream_id: string;
  readonly global_position: string;
  readonly event_type: string;
  readonly status: QuarantineStatus;
  readonly attempts: number;
  readonly last_error: string;
  readonly first_attempt_at: string;
  readonly last_attempt_at: string;
  readonly quarantined_at: string | null;
  readonly retry_requested_by: string | null;
  readonly retry_requested_at: string | null;
  readonly closed_by: string | null;
  readonly close_reason: string | null;
  readonly closed_at: string | null;
}

/** `open`: quarantined and not yet resolved or released; `failing`: still being retried in order. */
export type QuarantineFilter = 'open' | 'failing' | 'resolved' | 'released' | 'all';
export const QUARANTINE_FILTERS: readonly QuarantineFilter[] = ['open', 'failing', 'resolved', 'released', 'all'];

const FILTER_STATUSES: Record<QuarantineFilter, readonly QuarantineStatus[]> = {
  open: OPEN_STATUSES,
  failing: ['failing'],
  resolved: ['resolved'],
  released: ['released'],
  all: ['failing', 'quarantined', 'retry_requested', 'retrying', 'resolved', 'released'],
};

const COLUMNS = `subscriber, event_id, stream_id, global_position::text AS global_position, event_type, status, attempts, last_error,
  to_json(first_attempt_at) #>> '{}' AS first_attempt_at, to_json(last_attempt_at) #>> '{}' AS last_attempt_at,
  to_json(quarantined_at) #>> '{}' AS quarantined_at, retry_requested_by, to_json(retry_requested_at) #>> '{}' AS retry_requested_at,
  closed_by, close_reason, to_json(closed_at) #>> '{}' AS closed_at`;

/** Entries of a filter, optionally of one subscriber, newest first. */
export async function listQuarantine(
  db: Queryable,
  filter: QuarantineFilter,
  limit: number,
  subscriber?: string,
): Promise<QuarantineEntry[]> {
  const result = await db.query<QuarantineEntry>(
    `SELECT ${COLUMNS} FROM onceport.event_quarantine
     WHERE status = ANY($1) AND ($3::text IS NULL OR subscriber = $3)
     ORDER BY last_attempt_at DESC, subscriber, event_id LIMIT $2`,
    [FILTER_STATUSES[filter], limit, subscriber ?? null],
  );
  return result.rows;
}

export async function quarantineEntry(db: Queryable, subscriber: string, eventId: string): Promise<QuarantineEntry | null> {
  const result = await db.query<QuarantineEntry>(
    `SELECT ${COLUMNS} FROM onceport.event_quarantine WHERE subscriber = $1 AND event_id = $2`,
    [subscriber, eventId],
  );
  return result.rows[0] ?? null;
}

export type QuarantineChange =
  | { readonly ok: true; readonly entry: QuarantineEntry }
  | { readonly ok: false; readonly reason: 'not_found' | 'not_open'; readonly entry: QuarantineEntry | null };

/**
 * Asks the owning subscriber to apply a quarantined event again (it takes the request on its next
 * pass). Only an open entry can be retried; asking twice is harmless.
 */
export async function requestRetry(db: Queryable, subscriber: string, eventId: string, by: string): Promise<QuarantineChange> {
  const result = await db.query<QuarantineEntry>(
    `UPDATE onceport.event_quarantine SET status = 'retry_requested', retry_requested_by = $3, retry_requested_at = now()
     WHERE subscriber = $1 AND event_id = $2 AND status IN ('quarantined', 'retry_requested')
     RETURNING ${COLUMNS}`,
    [subscriber, eventId, by],
  );
  return changed(db, subscriber, eventId, result.rows[0]);
}

/** Gives up on a quarantined event for good, with who and why: it stays skipped and is no longer open. */
export async function releaseQuarantined(
  db: Queryable,
  subscriber: string,
  eventId: string,
  by: string,
  reason: string,
): Promise<QuarantineChange> {
  const result = await db.query<QuarantineEntry>(
    `UPDATE onceport.event_quarantine SET status = 'released', closed_by = $3, close_reason = $4, closed_at = now()
     WHERE subscriber = $1 AND event_id = $2 AND status IN ('quarantined', 'retry_requested', 'retrying')
     RETURNING ${COLUMNS}`,
    [subscriber, eventId, by, reason],
  );
  return changed(db, subscriber, eventId, result.rows[0]);
}

async function changed(db: Queryable, subscriber: string, eventId: string, row: QuarantineEntry | undefined): Promise<QuarantineChange> {
  if (row) return { ok: true, entry: row };
  const entry = await quarantineEntry(db, subscriber, eventId);
  return { ok: false, reason: entry ? 'not_open' : 'not_found', entry };
}
