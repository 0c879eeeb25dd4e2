import { createTestDatabase, genericPlansOf, recordStatements, type TestDatabase } from '../testing';
import { ResultStore, ResultStoreMigration, referenceFor } from './result-store';

describe('ResultStore (real PostgreSQL)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase([ResultStoreMigration]);
  });
  afterAll(() => db.drop());

  it('reads that arrive at once share a statement, each caller hearing its own result (an unknown ref: none)', async () => {
    const stored = new ResultStore(db.pool);
    const refs = await Promise.all(['first', 'second', 'third'].map((text) => stored.put(Buffer.from(text), 'text/plain')));
    const { pool, statements } = recordStatements(db.pool);
    const results = new ResultStore(pool);

    const read = await Promise.all([
      ...refs.map((reference) => results.get(reference.ref)),
      results.get('res_unknown'),
      results.get(refs[0]!.ref),
    ]);

    expect(read.map((result) => result?.body.toString() ?? null)).toEqual(['first', 'second', 'third', null, 'first']);
    expect(read[1]?.reference).toEqual(refs[1]);
    expect(statements).toHaveLength(2); // the first alone, the four that arrived while it ran together
  });

  it('a read of several results walks their key under a generic plan, never the whole table', async () => {
    const plans = await genericPlansOf(db.pool, async (probe) => {
      const results = new ResultStore(probe);
      await Promise.all([results.get('res_a'), results.get('res_b'), results.get('res_c')]);
    });

    expect(plans).toHaveLength(2);
    for (const plan of plans) {
      expect(plan).toContain('results_pkey');
      expect(plan).not.toContain('Seq Scan');
    }
  });
  it('a write tried again after its first committed passes with the same bytes; a ref held by other bytes fails', async () => {
    const results = new ResultStore(db.pool);
    const body = Buffer.from('written once');
    const reference = referenceFor(body, 'text/plain');
    await results.write(db.pool, reference, body);
    await results.write(db.pool, reference, body); // the retry of a write whose answer was lost

    expect((await results.get(reference.ref))?.body.toString()).toBe('written once');
    await expect(
      results.write(db.pool, { ...reference, digest: referenceFor(Buffer.from('other bytes'), null).digest }, Buffer.from('other bytes')),
    ).rejects.toThrow(/null value/);
  });

  it('only a small body’s write may share a statement with others’', () => {
    const results = new ResultStore(db.pool);
    const small = Buffer.alloc(64 * 1024);
    const large = Buffer.alloc(64 * 1024 + 1);

    expect(results.writeGuard(referenceFor(small, null), small).mergeable?.kind).toBe('results');
    expect(results.writeGuard(referenceFor(large, null), large).mergeable).toBeUndefined();
  });
});
