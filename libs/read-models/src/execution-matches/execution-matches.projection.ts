import { executionIdOfStream, parseEvent } from '@onceport/contracts';
import { type ExecutionState, type KnownExecutionState, evolve, initialState } from '@onceport/domain';
import type { Projection, Queryable, StoredEvent } from '@onceport/event-store';
import { ExecutionMatchesIntentDigestMigration } from './execution-matches-intent-digest.migration';
import { ExecutionMatchesMigration } from './execution-matches.migration';

interface Folded {
  state: ExecutionState;
  version: number;
}

/** Folds each execution stream into its row; events at or below a row's version are skipped (idempotent). */
export const executionMatchesProjection: Projection = {
  name: 'execution-matches',
  migrations: [ExecutionMatchesMigration, ExecutionMatchesIntentDigestMigration],

  async apply(events: readonly StoredEvent[], tx: Queryable): Promise<void> {
    const byExecution = new Map<string, StoredEvent[]>();
    for (const event of events) {
      const executionId = executionIdOfStream(event.streamId);
      if (!executionId) continue;
      byExecution.set(executionId, [...(byExecution.get(executionId) ?? []), event]);
    }
    if (byExecution.size === 0) return;
    const current = await loadRows(tx, [...byExecution.keys()]);
    const rows: Folded[] = [];
    for (const [executionId, streamEvents] of byExecution) {
      let folded = current.get(executionId) ?? { state: initialState(), version: 0 };
      for (const event of streamEvents) {
        if (event.streamVersion <= folded.version) continue;
        const parsed = parseEvent({
          type: event.type,
          schemaVersion: event.schemaVersion,
          data: event.data,
          metadata: { ...event.metadata, eventId: event.eventId },
        });
        folded = { state: evolve(folded.state, parsed), version: event.streamVersion };
      }
      if (folded.state.status !== 'none') rows.push(folded);
    }
    await upsertRows(tx, rows);
  },

  async reset(tx: Queryable): Promise<void> {
    await tx.query('DELETE FROM onceport.execution_matches');
  },
};

async function loadRows(tx: Queryable, executionIds: string[]): Promise<Map<string, Folded>> {
  const result = await tx.query<{ execution_id: string; state: ExecutionState; stream_version: number }>(
    'SELECT execution_id, state, stream_version FROM onceport.execution_matches WHERE execution_id = ANY($1) FOR UPDATE',
    [executionIds],
  );
  return new Map(result.rows.map((row) => [row.execution_id, { state: row.state, version: row.stream_version }]));
}

/**
 * Every execution of the batch in one statement: a batch holds events of many executions (about ten
 * under load), and a statement per execution was the read models' largest share of round trips.
 * Each execution appears once (the batch is grouped by execution), as `ON CONFLICT` requires.
 */
async function upsertRows(tx: Queryable, rows: readonly Folded[]): Promise<void> {
  const known = rows.flatMap((row) => (row.state.status === 'none' ? [] : [{ state: row.state, version: row.version }]));
  if (known.length === 0) return;
  const column = <T>(pick: (state: KnownExecutionState) => T): T[] => known.map((row) => pick(row.state));
  await tx.query(
    `INSERT INTO onceport.execution_matches AS m
       (execution_id, fingerprint, actor, intent_scope, tool, status, accepted_at, correlation_window_ends_at,
        ledger_retention_ends_at, stream_version, state)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[],
                          $8::timestamptz[], $9::timestamptz[], $10::int[], $11::jsonb[])
     ON CONFLICT (execution_id) DO UPDATE SET status = excluded.status, stream_version = excluded.stream_version, state = excluded.state
       WHERE m.stream_version < excluded.stream_version`,
    [
      column((state) => state.facts.executionId),
      column((state) => state.facts.fingerprint),
      column((state) => state.facts.actor),
      column((state) => state.facts.intentScope),
      column((state) => state.facts.tool),
      column((state) => state.status),
      column((state) => state.facts.acceptedAt),
      column((state) => state.facts.correlationWindowEndsAt),
      column((state) => state.facts.ledgerRetentionEndsAt),
      known.map((row) => row.version),
      column((state) => JSON.stringify(state)),
    ],
  );
}
