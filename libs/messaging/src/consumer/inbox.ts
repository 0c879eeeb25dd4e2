import { type ClientPool, type Queryable, inTransaction } from '@onceport/event-store';
import type { InboxMode } from './event-handler';

/** Claims the event for this consumer; false when it was already handled (or is being handled now). */
export async function claimInInbox(db: Queryable, consumer: string, eventId: string): Promise<boolean> {
  const result = await db.query('INSERT INTO onceport.consumer_inbox (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    consumer,
    eventId,
  ]);
  return result.rowCount === 1;
}

export async function isInInbox(db: Queryable, consumer: string, eventId: string): Promise<boolean> {
  const result = await db.query('SELECT 1 FROM onceport.consumer_inbox WHERE consumer = $1 AND event_id = $2', [consumer, eventId]);
  return (result.rowCount ?? 0) > 0;
}

/**
 * Runs a consumer's handler for one delivered event under its inbox mode (both deliveries, JetStream
 * and the store's tail, go through here); false when the inbox knew the event and skipped it.
 */
export async function deliverUnderInbox(
  pool: ClientPool,
  mode: InboxMode,
  consumer: string,
  eventId: string,
  handle: (tx: Queryable | null) => Promise<void>,
): Promise<boolean> {
  switch (mode) {
    case 'by_stream':
      await handle(null);
      return true;
    case 'transactional':
      return inTransaction(pool, async (tx) => {
        const claimed = await claimInInbox(tx, consumer, eventId);
        if (claimed) await handle(tx);
        return claimed;
      });
    case 'record_after':
      if (await isInInbox(pool, consumer, eventId)) return false;
      await handle(null);
      await claimInInbox(pool, consumer, eventId);
      return true;
  }
}
