import type { Queryable } from '../queryable';
import type { BrokenLink, StreamLink } from './chain-verifier';

/**
 * Checks that every stream head of an earlier export is still in the database, unchanged. The
 * store is append-only, so a head once exported must stay: this is what shows a stream's newest
 * events removed from the database, which its chain alone cannot.
 */
export async function verifyCheckpoint(
  db: Queryable,
  heads: ReadonlyMap<string, StreamLink>,
  batchSize = 5000,
): Promise<BrokenLink | null> {
  const entries = [...heads];
  for (let i = 0; i < entries.length; i += batchSize) {
    const batch = entries.slice(i, i + batchSize);
    const found = await db.query<{ stream_id: string; stream_version: number; chain_hash: Buffer; global_position_text: string }>(
      `SELECT e.stream_id, e.stream_version, e.chain_hash, e.global_position::text AS global_position_text
       FROM unnest($1::text[], $2::int[]) AS h(stream_id, stream_version)
       JOIN onceport.events e USING (stream_id, stream_version)`,
      [batch.map(([streamId]) => streamId), batch.map(([, link]) => link.version)],
    );
    const byStream = new Map(found.rows.map((row) => [row.stream_id, row]));
    for (const [streamId, link] of batch) {
      const row = byStream.get(streamId);
      if (!row) {
        return {
          streamId,
          streamVersion: link.version,
          globalPosition: null,
          problem: 'stream_head_mismatch',
          detail: `the checkpoint has version ${link.version} of this stream, the database does not: it was removed`,
        };
      }
      if (!row.chain_hash.equals(link.chainHash)) {
        return {
          streamId,
          streamVersion: link.version,
          globalPosition: BigInt(row.global_position_text),
          problem: 'stream_head_mismatch',
          detail: `version ${link.version} is not the event the checkpoint recorded (chain hash differs)`,
        };
      }
    }
  }
  return null;
}
