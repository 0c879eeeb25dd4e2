import { createHash, randomUUID } from 'node:crypto';
import type { ResultReference } from '@onceport/contracts';
import { Migration } from '@mikro-orm/migrations';
import { refusedForItsValues } from '../errors';
import type { AppendGuard } from '../event-store.port';
import { NextBatch } from '../next-batch';
import type { Queryable } from '../queryable';

/** The largest body whose write may share a statement with others' (see `writeGuard`). */
const MERGEABLE_BODY_BYTES = 64 * 1024;

/**
 * A write tried again after a lost connection, when the first had committed, finds its ref written
 * with the same bytes: the guard passes, and the appends it guards meet their own events (a version
 * conflict: the command reads the stream and decides again) instead of a key error on the bytes.
 * A ref held by other bytes fails the statement (its ref set to null).
 */
const WRITTEN_ONCE = `ON CONFLICT (ref) DO UPDATE
  SET ref = CASE WHEN onceport.results.digest = excluded.digest THEN excluded.ref END RETURNING ref`;

/** The most results one read carries: bodies are capped, but a read of many is held in memory at once. */
const MAX_RESULTS_PER_READ = 32;

/**
 * Target answers are stored by reference: events carry `{ ref, digest, size, contentType }`, the
 * bytes live here (bounded by the contract's size cap before they arrive).
 */
export class ResultStoreMigration extends Migration {
  static readonly id = '110-results';

  override up(): void {
    this.addSql(`
CREATE TABLE onceport.results (
  ref          text        PRIMARY KEY,
  digest       text        NOT NULL,
  content_type text,
  size         integer     NOT NULL,
  body         bytea       NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);`);
  }
}

export interface StoredResult {
  readonly reference: ResultReference;
  readonly body: Buffer;
}

/** The reference a body is stored under: a new ref, its digest and size, known before it is written. */
export function referenceFor(body: Buffer, contentType: string | null): ResultReference {
  return {
    ref: `res_${randomUUID()}`,
    digest: `sha256:${createHash('sha256').update(body).digest('hex')}`,
    size: body.length,
    contentType,
  };
}

export class ResultStore {
  /** Reads that arrive while one is in flight go together in the next (intake answering many calls at once). */
  private readonly reads: NextBatch<string, StoredResult | null>;

  constructor(private readonly db: Queryable) {
    this.reads = new NextBatch((refs) => this.getAll(refs), MAX_RESULTS_PER_READ, refusedForItsValues);
  }

  async put(body: Buffer, contentType: string | null): Promise<ResultReference> {
    const reference = referenceFor(body, contentType);
    await this.write(this.db, reference, body);
    return reference;
  }

  /** Writes `body` under `reference` on `db`. */
  async write(db: Queryable, reference: ResultReference, body: Buffer): Promise<void> {
    const { text, values } = this.writeGuard(reference, body);
    await db.query(text, [...values]);
  }

  /** The write of `body` as the guard of the appends naming it (`CommandAttempt.onlyIf`): the bytes and the event in one statement. */
  writeGuard(reference: ResultReference, body: Buffer): AppendGuard {
    return {
      text: `INSERT INTO onceport.results (ref, digest, content_type, size, body) VALUES ($1, $2, $3, $4, $5) ${WRITTEN_ONCE}`,
      values: [reference.ref, reference.digest, reference.contentType, reference.size, body],
      // Merged writes send their bodies as one text array (hex, twice their size): only small ones share a statement.
      ...(body.length <= MERGEABLE_BODY_BYTES ? { mergeable: { kind: 'results', merge: writeAllGuard } } : {}),
    };
  }

  get(ref: string): Promise<StoredResult | null> {
    return this.reads.submit(ref);
  }

  private async getAll(refs: readonly string[]): Promise<(StoredResult | null)[]> {
    const result = await this.db.query<{ ref: string; digest: string; content_type: string | null; size: number; body: Buffer }>(
      'SELECT ref, digest, content_type, size, body FROM onceport.results WHERE ref = ANY($1::text[])',
      [refs],
    );
    const byRef = new Map(result.rows.map((row) => [row.ref, row]));
    return refs.map((ref) => {
      const row = byRef.get(ref);
      if (!row) return null;
      return {
        reference: { ref: row.ref, digest: row.digest as ResultReference['digest'], size: row.size, contentType: row.content_type },
        body: row.body,
      };
    });
  }
}

/**
 * Several results' writes as one guard: each row is the values of one `writeGuard`. It returns rows
 * only when it wrote every one: any failure, a ref held by other bytes included, fails the statement.
 */
function writeAllGuard(guards: readonly AppendGuard[]): AppendGuard {
  const column = (i: number) => guards.map((guard) => guard.values[i]);
  return {
    text: `INSERT INTO onceport.results (ref, digest, content_type, size, body)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::bytea[]) ${WRITTEN_ONCE}`,
    values: [column(0), column(1), column(2), column(3), column(4)],
  };
}
