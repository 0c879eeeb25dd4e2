import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { GENESIS_HASH, type StoredEvent, hashedContentJson } from '@onceport/event-store';
import { newExecutionId } from '@onceport/domain';
import type { Pool, PoolClient } from 'pg';
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
export async function seedExecutions(
  pool: Pool,
  template: ExecutionTemplate,
  executions: number,
  onProgress?: (done: number) => void,
): Promise<void> {
  const cloner = new ExecutionCloner(template);
  const client = await pool.connect();
  try {
    await client.query('SET session_replication_role = replica');
    await client.query('SET synchronous_commit = off'); // a bulk load: one flush at the end is enough
    // Millions of rows load faster into a table without its secondary indexes, built once after.
    const rebuildIndexes = executions * cloner.eventsPerExecution >= 1_000_000;
    if (rebuildIndexes) await dropIndexes(client);
    const perBatch = 2000;
    const baseMs = Date.now() - 30 * 24 * 3_600_000;
    const build = (from: number): unknown[][] => {
      const columns: unknown[][] = Array.from({ length: 11 }, () => []);
      for (let i = from; i < Math.min(from + perBatch, executions); i++) cloner.clone(baseMs + i, columns);
      return columns;
    };
    // Build the next batch while PostgreSQL inserts this one: the two run on different cores.
    let inserting: Promise<unknown> | null = null;
    for (let done = 0; done < executions; done += perBatch) {
      const columns = build(done);
      if (inserting) await inserting;
      inserting = client.query(INSERT, columns);
      onProgress?.(Math.min(done + perBatch, executions));
    }
    if (inserting) await inserting;
    if (rebuildIndexes) await restoreIndexes(client);
  } finally {
    await client.query('RESET session_replication_role').catch(() => undefined);
    client.release();
  }
}

function templateEvent(event: StoredEvent): TemplateEvent {
  const canonical = hashedContentJson(event);
  return { event, streamId: event.streamId, dataText: JSON.stringify(event.data), metadataText: JSON.stringify(event.metadata), canonical };
}

const INDEXES = [
  {
    drop: 'ALTER TABLE onceport.events DROP CONSTRAINT events_event_id_key',
    create: 'ALTER TABLE onceport.events ADD CONSTRAINT events_event_id_key UNIQUE (event_id)',
  },
  {
    drop: 'ALTER TABLE onceport.events DROP CONSTRAINT events_stream_version_unique',
    create: 'ALTER TABLE onceport.events ADD CONSTRAINT events_stream_version_unique UNIQUE (stream_id, stream_version)',
  },
  {
    drop: 'DROP INDEX onceport.events_tail_idx',
    create: 'CREATE INDEX events_tail_idx ON onceport.events (transaction_id, global_position)',
  },
] as const;

async function dropIndexes(client: PoolClient): Promise<void> {
  for (const index of INDEXES) await client.query(index.drop);
}

/** The same definitions as migration 001: the store is measured with the indexes it runs with. */
async function restoreIndexes(client: PoolClient): Promise<void> {
  await client.query("SET maintenance_work_mem = '1GB'");
  for (const index of INDEXES) await client.query(index.create);
}

/**
 * A text cut at every occurrence of the values that change per clone, so a clone is one join
 * (splitting and re-joining each text per clone made seeding ten million events take half an hour).
 */
class Stencil {
  private readonly parts: string[] = [];
  private readonly slots: number[] = [];

  constructor(text: string, tokens: readonly string[]) {
    let rest = text;
    for (;;) {
      let at = -1;
      let slot = -1;
      tokens.forEach((token, i) => {
        const found = rest.indexOf(token);
        if (found >= 0 && (at < 0 || found < at || (found === at && token.length > (tokens[slot] ?? '').length))) {
          at = found;
          slot = i;
        }
      });
      if (at < 0) break;
      this.parts.push(rest.slice(0, at));
      this.slots.push(slot);
      rest = rest.slice(at + (tokens[slot] ?? '').length);
    }
    this.parts.push(rest);
  }

  render(values: readonly string[]): string {
    let out = this.parts[0] ?? '';
    for (let i = 0; i < this.slots.length; i++) out += (values[this.slots[i] ?? 0] ?? '') + (this.parts[i + 1] ?? '');
    return out;
  }
}

interface EventStencils {
  readonly t: TemplateEvent;
  readonly streamId: Stencil;
  readonly canonical: Stencil;
  readonly data: Stencil;
  readonly metadata: Stencil;
  readonly eventIdSlot: number;
  readonly recordedAtSlot: number;
}

/** Clones the template execution: new execution id, intent stream, event ids and times (shifted together). */
class ExecutionCloner {
  readonly eventsPerExecution: number;
  private readonly tokens: string[];
  private readonly events: EventStencils[];
  private readonly recordedAtMs: number[];

  constructor(private readonly template: ExecutionTemplate) {
    const templates = [template.intentClaim, ...template.events].map((event) => templateEvent(event));
    this.eventsPerExecution = templates.length;
    const isoTimes = [...new Set(templates.map((t) => t.event.recordedAt.toISOString()))];
    this.recordedAtMs = isoTimes.map((iso) => Date.parse(iso));
    // Slots: 0 execution id, 1 intent stream, then one per event id, then one per distinct recorded time.
    this.tokens = [template.executionId, template.intentClaim.streamId, ...templates.map((t) => t.event.eventId), ...isoTimes];
    this.events = templates.map((t, index) => ({
      t,
      streamId: new Stencil(t.streamId, this.tokens),
      canonical: new Stencil(t.canonical, this.tokens),
      data: new Stencil(t.dataText, this.tokens),
      metadata: new Stencil(t.metadataText, this.tokens),
      eventIdSlot: 2 + index,
      recordedAtSlot: 2 + templates.length + isoTimes.indexOf(t.event.recordedAt.toISOString()),
    }));
  }

  clone(atMs: number, columns: unknown[][]): void {
    const executionId = newExecutionId(atMs, randomBytes(10));
    const shift = atMs - this.template.intentClaim.recordedAt.getTime();
    const values = [
      executionId,
      `intent-${createHash('sha256').update(`seed:${executionId}`).digest('hex')}`,
      ...this.events.map(() => randomUUID()),
      ...this.recordedAtMs.map((ms) => new Date(ms + shift).toISOString()),
    ];
    const previous = new Map<string, Buffer>();
    for (const e of this.events) {
      const streamId = e.streamId.render(values);
      const content = createHash('sha256').update(e.canonical.render(values)).digest();
      const prev = e.t.event.streamVersion === 1 ? GENESIS_HASH : (previous.get(streamId) ?? GENESIS_HASH);
      const chain = createHash('sha256').update(prev).update(content).digest();
      previous.set(streamId, chain);
      const row = [
        values[e.eventIdSlot],
        streamId,
        e.t.event.streamVersion,
        e.t.event.type,
        e.t.event.schemaVersion,
        e.data.render(values),
        e.metadata.render(values),
        values[e.recordedAtSlot],
        content,
        prev,
        chain,
      ];
      row.forEach((value, column) => columns[column]?.push(value));
    }
  }
}
