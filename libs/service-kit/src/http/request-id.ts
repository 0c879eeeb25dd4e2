import { randomUUID } from 'node:crypto';

/** `X-Request-Id`: kept as a causation id when it looks like an id; otherwise replaced by a fresh UUID. */
export const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * The causation id of an HTTP call: the client's `X-Request-Id` when it looks like an id, else a
 * fresh one — never copied raw into an event or a log line (intake and the admin APIs alike).
 */
export function requestIdOrFresh(value: string | null | undefined): string {
  return typeof value === 'string' && REQUEST_ID.test(value) ? value : randomUUID();
}
