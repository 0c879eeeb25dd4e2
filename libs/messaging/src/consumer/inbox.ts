import type { Queryable } from '@onceport/event-store';

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
