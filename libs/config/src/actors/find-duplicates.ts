import { type ActorsFileIssueCode } from './actors-file-error';
import { type RawActorsFile } from './actors-file.schema';
import { type PathSegment, formatPath } from '@onceport/domain';

export interface Draft {
  readonly code: ActorsFileIssueCode;
  readonly path: readonly PathSegment[];
  readonly found: string;
  readonly expected: string;
}

/**
 * Ids are one namespace across actors and admins (they end up side by side in `by` and `actor`
 * fields), and a key hash belongs to exactly one principal: otherwise a key would authenticate as
 * whichever principal happened to be checked first.
 */
export function findDuplicates(file: RawActorsFile): Draft[] {
  const principals = [
    ...file.actors.map((p, i) => ({ ...p, at: ['actors', i] as PathSegment[] })),
    ...file.admins.map((p, i) => ({ ...p, at: ['admins', i] as PathSegment[] })),
  ];
  const drafts: Draft[] = [];
  const idSeen = new Map<string, PathSegment[]>();
  const keySeen = new Map<string, { at: PathSegment[]; id: string }>();
  for (const principal of principals) {
    const firstId = idSeen.get(principal.id);
    if (firstId) {
      drafts.push({ code: 'duplicate_id', path: [...principal.at, 'id'], found: `"${principal.id}", already declared at ${formatPath(firstId)}`, expected: 'an id used once across actors and admins' });
    } else {
      idSeen.set(principal.id, principal.at);
    }
    principal.api_keys_sha256.forEach((hash, index) => {
      const key = hash.toLowerCase();
      const first = keySeen.get(key);
      if (first) {
        drafts.push({
          code: 'duplicate_key',
          path: [...principal.at, 'api_keys_sha256', index],
          found: `a key hash already listed at ${formatPath(first.at)} (${first.id})`,
          expected: 'each API key to belong to one principal only: give every actor and admin its own key',
        });
      } else {
        keySeen.set(key, { at: [...principal.at, 'api_keys_sha256', index], id: principal.id });
      }
    });
  }
  return drafts;
}
