import { type ActorsFileIssue, actorsFileIssue } from './actors-file-error';
import { type KeyedPrincipal, type PlacedHash } from './merge-actor-keys';
import { formatPath } from '@onceport/domain';

/**
 * Ids are one namespace across actors and admins (they end up side by side in `by` and `actor`
 * fields), and a key hash belongs to exactly one principal, whichever file lists it: otherwise a
 * key would authenticate as whichever principal happened to be checked first.
 */
export function findDuplicates(
  principals: readonly KeyedPrincipal[],
  policyFile: { file: string; lineOf: PlacedHash['source']['lineOf'] },
): ActorsFileIssue[] {
  const issues: ActorsFileIssue[] = [];
  const idSeen = new Map<string, KeyedPrincipal['at']>();
  const keySeen = new Map<string, { hash: PlacedHash; id: string }>();
  for (const principal of principals) {
    const firstId = idSeen.get(principal.id);
    if (firstId) {
      const path = [...principal.at, 'id'];
      issues.push(
        actorsFileIssue({
          code: 'duplicate_id',
          file: policyFile.file,
          path: formatPath(path),
          line: policyFile.lineOf(path),
          found: `"${principal.id}", already declared at ${formatPath(firstId)}`,
          expected: 'an id used once across actors and admins',
        }),
      );
    } else {
      idSeen.set(principal.id, principal.at);
    }
    for (const hash of principal.hashes) {
      const key = hash.hex.toLowerCase();
      const first = keySeen.get(key);
      if (!first) {
        keySeen.set(key, { hash, id: principal.id });
        continue;
      }
      const where =
        first.hash.source === hash.source ? formatPath(first.hash.path) : `${first.hash.source.file}: ${formatPath(first.hash.path)}`;
      issues.push(
        actorsFileIssue({
          code: 'duplicate_key',
          file: hash.source.file,
          path: formatPath(hash.path),
          line: hash.source.lineOf(hash.path),
          found: `a key hash already listed at ${where} (${first.id})`,
          expected: 'each API key to belong to one principal only: give every actor and admin its own key',
        }),
      );
    }
  }
  return issues;
}
