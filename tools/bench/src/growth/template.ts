import type { Pool } from 'pg';
import { type StoredEvent, PostgresEventStore } from '@onceport/event-store';

/** A real completed execution (its intent claim and its stream), to clone when seeding a big store. */
export interface ExecutionTemplate {
  readonly executionId: string;
  readonly intentClaim: StoredEvent;
  readonly events: readonly StoredEvent[];
}

/** Takes the newest execution whose result was delivered, from a store the real services wrote. */
export async function captureTemplate(pool: Pool): Promise<ExecutionTemplate> {
  const found = await pool.query<{ stream_id: string }>(
    `SELECT stream_id FROM onceport.events WHERE event_type = 'ResultDelivered' AND stream_id LIKE 'execution-%'
     ORDER BY global_position DESC LIMIT 1`,
  );
  const streamId = found.rows[0]?.stream_id;
  if (!streamId) throw new Error('no completed execution to take as a seeding template');
  const executionId = streamId.slice('execution-'.length);
  const store = new PostgresEventStore(pool);
  const events = await store.readStream(streamId);
  const claim = await pool.query<{ stream_id: string }>(
    `SELECT stream_id FROM onceport.events WHERE event_type = 'IntentClaimed' AND data->>'executionId' = $1 LIMIT 1`,
    [executionId],
  );
  const claimStream = claim.rows[0]?.stream_id;
  if (!claimStream) throw new Error(`no intent claim for ${executionId}`);
  const intentClaim = (await store.readStream(claimStream)).find((event) => event.data['executionId'] === executionId);
  if (!intentClaim) throw new Error(`intent stream ${claimStream} does not claim ${executionId}`);
  return { executionId, intentClaim, events };
}
