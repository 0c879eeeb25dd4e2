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
 * - `transactional`: the handler's database writes and the inbox row commit together: exactly once.
 *   Keep such handlers short and database-only.
 * - `record_after`: skip events already in the inbox, record after the handler succeeds. For
 *   handlers with outside effects, which must also be idempotent by stream version themselves.
 */
export type InboxMode = 'transactional' | 'record_after';
