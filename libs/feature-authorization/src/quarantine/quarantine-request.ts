import { QUARANTINE_FILTERS, type QuarantineFilter } from '@onceport/event-store';
import { Problem } from '@onceport/service-kit';

/** The bounds of the quarantine API's inputs, each refused as a 400 problem naming the input. */

const SUBSCRIBER = /^[A-Za-z0-9][A-Za-z0-9:._-]{0,199}$/;
const EVENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

export function filterOf(status: string | undefined): QuarantineFilter {
  if (status === undefined || status === '') return 'open';
  if ((QUARANTINE_FILTERS as readonly string[]).includes(status)) return status as QuarantineFilter;
  throw new Problem(
    400,
    'invalid_status',
    'Invalid status',
    `"status" must be one of ${QUARANTINE_FILTERS.join(', ')}; got ${JSON.stringify(status.slice(0, 40))}.`,
  );
}

export function limitOf(limit: string | undefined): number {
  if (limit === undefined || limit === '') return DEFAULT_LIST_LIMIT;
  const value = Number(limit);
  if (!/^\d{1,4}$/.test(limit) || value < 1 || value > MAX_LIST_LIMIT) {
    throw new Problem(
      400,
      'invalid_limit',
      'Invalid limit',
      `"limit" must be a whole number from 1 to ${MAX_LIST_LIMIT}; got ${JSON.stringify(limit.slice(0, 40))}.`,
    );
  }
  return value;
}

/** A subscriber name as the code makes them (`projection:execution-matches`, `consumer:authorization`). */
export function subscriberOf(raw: string): string {
  if (!SUBSCRIBER.test(raw)) {
    throw new Problem(
      400,
      'invalid_subscriber',
      'Invalid subscriber',
      '"subscriber" is 1-200 letters, digits and ":._-", e.g. projection:execution-matches or consumer:authorization.',
    );
  }
  return raw;
}

/** The list's optional `subscriber` filter. */
export function subscriberFilterOf(raw: string | undefined): string | undefined {
  return raw === undefined || raw === '' ? undefined : subscriberOf(raw);
}

export function eventIdOf(raw: string): string {
  if (!EVENT_ID.test(raw))
    throw new Problem(400, 'invalid_event_id', 'Invalid event id', 'The event id is a UUID, as listed by GET /v1/admin/quarantine.');
  return raw.toLowerCase();
}
