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
      if (folded.state.status !== 'none') await upsertRow(tx, folded.state, folded.version);
    }
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

async function upsertRow(tx: Queryable, state: KnownExecutionState, version: number): Promise<void> {
  const f = state.facts;
  await tx.query(
    `INSERT INTO onceport.execution_matches AS m
       (execution_id, fingerprint, actor, intent_scope, tool, status, accepted_at, correlation_window_ends_at,
        ledger_retention_ends_at, stream_version, state)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (execution_id) DO UPDATE SET status = excluded.status, stream_version = excluded.stream_version, state = excluded.state
       WHERE m.stream_version < excluded.stream_version`,
    [
      f.executionId,
      f.fingerprint,
      f.actor,
      f.intentScope,
      f.tool,
      state.status,
      f.acceptedAt,
      f.correlationWindowEndsAt,
      f.ledgerRetentionEndsAt,
      version,
      JSON.stringify(state),
    ],
  );
}
