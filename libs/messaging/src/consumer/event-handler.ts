import type { Queryable } from '@onceport/event-store';
import type { WireEvent } from '../wire-event';

export interface DeliveryContext {
  readonly subject: string;
  /** 1 on first delivery; higher when JetStream redelivers. */
  readonly deliveryCount: number;
  readonly traceparent: string | null;
  readonly tracestate: string | null;
  /** Present in `transactional` inbox mode: write effects here so they commit with the inbox row. */
  readonly tx: Queryable | null;
}

export type EventHandler = (event: WireEvent, context: DeliveryContext) => Promise<void>;

/**
 * How a consumer makes redelivery harmless, by event id:
 * - `by_stream`: no inbox at all. The handler acts only on the state of the stream it reads and
 *   appends with expected versions, so a redelivered event (or another event for the same
 *   execution) finds nothing left to do. Costs nothing per event: the choice for every handler that
 *   decides from a stream, which is all of Onceport's.
 * - `transactional`: the handler's database writes and the inbox row commit together: exactly once.
 *   Keep such handlers short and database-only.
 * - `record_after`: skip events already in the inbox, record after the handler succeeds. For
 *   handlers with outside effects, which must also be idempotent by stream version themselves.
 */
export type InboxMode = 'by_stream' | 'transactional' | 'record_after';
