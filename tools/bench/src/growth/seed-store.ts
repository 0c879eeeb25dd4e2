import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { GENESIS_HASH, type StoredEvent, canonicalJsonForHash } from '@onceport/event-store';
import { newExecutionId } from '@onceport/domain';
import type { Pool } from 'pg';
import type { ExecutionTemplate } from './template';

/** Events one seeded execution adds: its intent claim and its execution stream. */
export function eventsPerExecution(template: ExecutionTemplate): number {
  return 1 + template.events.length;
}

interface TemplateEvent {
  readonly event: StoredEvent;
  readonly streamId: string;
  readonly dataText: string;
  readonly metadataText: string;
  /** The canonical text its content hash covers, with the values that change per clone still in. */
  readonly canonical: string;
}

const INSERT = `
INSERT INTO onceport.events
  (event_id, stream_id, stream_version, event_type, schema_version, data, metadata, recorded_at, content_hash, prev_hash, chain_hash)
SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::int[], $6::jsonb[], $7::jsonb[], $8::timestamptz[], $9::bytea[], $10::bytea[], $11::bytea[])`;

/**
 * Bulk-loads `executions` clones of a real execution (new execution ids, event ids, intent streams
 * and times; hashes and chain links computed here exactly as the trigger would), with the
 * session's triggers off (`session_replication_role = replica`): seeding ten million events
 * through the API or row triggers would take hours. The chain verifier checks the result.
 */
export async function seedExecutions(pool: Pool, template: ExecutionTemplate, executions: number, onProgress?: (done: number) => void): Promise<void> {
  const templates = [template.intentClaim, ...template.events].map((event) => templateEvent(event));
  const client = await pool.connect();
  try {
    await client.query('SET session_replication_role = replica');
    const perBatch = 2000;
    const baseMs = Date.now() - 30 * 24 * 3_600_000;
    for (let done = 0; done < executions; done += perBatch) {
      const n = Math.min(perBatch, executions - done);
      const columns: unknown[][] = Array.from({ length: 11 }, () => []);
      for (let i = 0; i < n; i++) cloneExecution(template, templates, baseMs + done + i, columns);
      await client.query(INSERT, columns);
      onProgress?.(done + n);
    }
  } finally {
    await client.query('RESET session_replication_role').catch(() => undefined);
    client.release();
  }
}

function templateEvent(event: StoredEvent): TemplateEvent {
  const canonical = canonicalJsonForHash({
    eventId: event.eventId,
    streamId: event.streamId,
    streamVersion: event.streamVersion,
    type: event.type,
    schemaVersion: event.schemaVersion,
    data: event.data,
    metadata: event.metadata,
    recordedAt: event.recordedAt.toISOString(),
  });
  return { event, streamId: event.streamId, dataText: JSON.stringify(event.data), metadataText: JSON.stringify(event.metadata), canonical };
}

/** Every value that changes per clone is a unique token in the template's texts: replace them all. */
function cloneExecution(template: ExecutionTemplate, templates: readonly TemplateEvent[], atMs: number, columns: unknown[][]): void {
  const executionId = newExecutionId(atMs, randomBytes(10));
  const intentStream = `intent-${createHash('sha256').update(`seed:${executionId}`).digest('hex')}`;
  const replacements: [string, string][] = [
    [template.executionId, executionId],
    [template.intentClaim.streamId, intentStream],
  ];
  const shift = atMs - (template.intentClaim.recordedAt.getTime());
  for (const t of templates) replacements.push([t.event.eventId, randomUUID()]);
  for (const t of templates) {
    const iso = t.event.recordedAt.toISOString();
    replacements.push([iso, new Date(t.event.recordedAt.getTime() + shift).toISOString()]);
  }
  const replace = (text: string): string => replacements.reduce((acc, [from, to]) => acc.split(from).join(to), text);
  const previous = new Map<string, Buffer>();
  templates.forEach((t, index) => {
    const streamId = replace(t.streamId);
    const content = createHash('sha256').update(replace(t.canonical)).digest();
    const prev = t.event.streamVersion === 1 ? GENESIS_HASH : (previous.get(streamId) ?? GENESIS_HASH);
    const chain = createHash('sha256').update(prev).update(content).digest();
    previous.set(streamId, chain);
    const values = [
      replacements[2 + index]?.[1],
      streamId,
      t.event.streamVersion,
      t.event.type,
      t.event.schemaVersion,
      replace(t.dataText),
      replace(t.metadataText),
      new Date(t.event.recordedAt.getTime() + shift),
      content,
      prev,
      chain,
    ];
    values.forEach((value, column) => columns[column]?.push(value));
  });
}
