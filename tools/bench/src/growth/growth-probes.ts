import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  CHECKPOINT_START,
  type Checkpoint,
  PostgresEventStore,
  inTransaction,
  readChainsFromDatabase,
  readCommittedAfter,
  saveCheckpoint,
  verifyChains,
  type StoredEvent,
  CommandHandler,
  executionStream,
} from '@onceport/event-store';
import { type KnownExecutionState, matchRetry, newExecutionId, retryCandidateOf } from '@onceport/domain';
import { executionMatchesProjection } from '@onceport/read-models';
import type { Pool } from 'pg';
import { timed } from '../callers/callers';
import type { ExecutionTemplate } from './template';

/** One seeded execution to look up: its id and its intent stream. */
interface Sample {
  readonly executionId: string;
  readonly intentStream: string;
}

/** Random seeded executions (TABLESAMPLE keeps this cheap on ten million rows). */
export async function sampleExecutions(pool: Pool, n: number): Promise<Sample[]> {
  const rows = await pool.query<{ stream_id: string; execution_id: string }>(
    `SELECT stream_id, data->>'executionId' AS execution_id FROM onceport.events TABLESAMPLE SYSTEM (1)
     WHERE event_type = 'IntentClaimed' LIMIT $1`,
    [n],
  );
  const found = rows.rows.map((row) => ({ executionId: row.execution_id, intentStream: row.stream_id }));
  if (found.length >= Math.min(n, 1)) return found;
  const all = await pool.query<{ stream_id: string; execution_id: string }>(
    `SELECT stream_id, data->>'executionId' AS execution_id FROM onceport.events WHERE event_type = 'IntentClaimed' ORDER BY random() LIMIT $1`,
    [n],
  );
  return all.rows.map((row) => ({ executionId: row.execution_id, intentStream: row.stream_id }));
}

/** The acceptance commit as intake makes it: a new intent claim and ExecutionAccepted in one transaction. */
export async function appendLatency(pool: Pool, template: ExecutionTemplate): Promise<number> {
  const store = new PostgresEventStore(pool);
  const accepted = template.events[0] as StoredEvent;
  const claim = template.intentClaim;
  const executionId = newExecutionId(Date.now(), randomBytes(10));
  const rewrite = (value: unknown): never => JSON.parse(JSON.stringify(value).split(template.executionId).join(executionId)) as never;
  const { ms } = await timed(() =>
    inTransaction(pool, async (tx) => {
      const intent = `intent-${createHash('sha256').update(randomUUID()).digest('hex')}`;
      await store.append(
        intent,
        [
          {
            eventId: randomUUID(),
            type: claim.type,
            schemaVersion: claim.schemaVersion,
            data: rewrite(claim.data),
            metadata: rewrite(claim.metadata),
          },
        ],
        { expectedVersion: 0, tx },
      );
      await store.append(
        `execution-${executionId}`,
        [
          {
            eventId: randomUUID(),
            type: accepted.type,
            schemaVersion: accepted.schemaVersion,
            data: rewrite(accepted.data),
            metadata: rewrite(accepted.metadata),
          },
        ],
        { expectedVersion: 0, tx },
      );
    }),
  );
  return ms;
}

/**
 * Retry matching as intake does it for a call: read the intent's claims, load each claimed
 * execution, fold it, and run the matching rule (DESIGN §5).
 */
export async function retryMatchingLatency(pool: Pool, sample: Sample): Promise<number> {
  const store = new PostgresEventStore(pool);
  const repository = new CommandHandler(store);
  const { ms } = await timed(async () => {
    const claims = (await store.readStream(sample.intentStream)).filter((event) => event.type === 'IntentClaimed');
    const loaded = await Promise.all(claims.map((claim) => repository.load(executionStream(String(claim.data['executionId'])))));
    const candidates = loaded.filter((l) => l.state.status !== 'none').map((l) => retryCandidateOf(l.state as KnownExecutionState));
    const first = candidates[0];
    return first
      ? matchRetry(candidates, { fingerprints: [first.fingerprint], actor: first.actor, intentScope: first.intentScope }, new Date())
      : null;
  });
  return ms;
}

/** Rebuilding one execution's state from its stream (what every service does before deciding). */
export async function rebuildOneLatency(pool: Pool, sample: Sample): Promise<number> {
  const repository = new CommandHandler(new PostgresEventStore(pool));
  const { ms } = await timed(() => repository.load(executionStream(sample.executionId)));
  return ms;
}

/**
 * The execution-matches projection replayed from the start of the store, batch by batch in
 * transactions with a checkpoint, as ProjectionRunner does; stops after `budgetMs`.
 */
export async function projectionRebuildRate(pool: Pool, budgetMs: number): Promise<{ events: number; eventsPerSecond: number }> {
  await pool.query('DELETE FROM onceport.execution_matches');
  const started = Date.now();
  let checkpoint: Checkpoint = CHECKPOINT_START;
  let events = 0;
  while (Date.now() - started < budgetMs) {
    const batch = await readCommittedAfter(pool, checkpoint, 500);
    const last = batch[batch.length - 1];
    if (!last) break;
    const next = { transactionId: last.transactionId, globalPosition: last.globalPosition };
    await inTransaction(pool, async (tx) => {
      await executionMatchesProjection.apply(batch, tx);
      await saveCheckpoint(tx, 'bench:projection-rebuild', next);
    });
    checkpoint = next;
    events += batch.length;
  }
  return { events, eventsPerSecond: events / ((Date.now() - started) / 1000) };
}

/** `verifyChains` over the database, stream by stream, for at most `budgetMs`. */
export async function auditVerifyRate(
  pool: Pool,
  budgetMs: number,
): Promise<{ events: number; eventsPerSecond: number; broken: string | null }> {
  const started = Date.now();
  async function* bounded(): AsyncGenerator<StoredEvent> {
    for await (const event of readChainsFromDatabase(pool)) {
      yield event;
      if (Date.now() - started > budgetMs) return;
    }
  }
  const report = await verifyChains(bounded());
  const broken = report.firstBrokenLink
    ? `${report.firstBrokenLink.problem} at ${report.firstBrokenLink.streamId} v${report.firstBrokenLink.streamVersion}`
    : null;
  return { events: report.eventsChecked, eventsPerSecond: report.eventsChecked / ((Date.now() - started) / 1000), broken };
}
