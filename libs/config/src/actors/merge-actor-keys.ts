import { type ActorsFileIssue } from './actors-file-error';
import { KEY_HASH_EXPECTED, type RawActorKeysFile, type RawActorsFile } from './actors-file.schema';
import { type CheckedSource, type Draft, locate } from './checked-source';
import { type PathSegment, formatPath } from '@onceport/domain';

/** A key hash and where it was written, so a problem with it names the right file and line. */
export interface PlacedHash {
  readonly hex: string;
  readonly source: CheckedSource<unknown>;
  readonly path: readonly PathSegment[];
}

/** An actor or admin of the actors file with the key hashes of whichever file gave them. */
export interface KeyedPrincipal {
  readonly id: string;
  /** Where the actors file declares it: `['actors', 0]` or `['admins', 1]`. */
  readonly at: readonly PathSegment[];
  readonly hashes: readonly PlacedHash[];
}

/**
 * Joins the key hashes of ONCEPORT_ACTOR_KEYS_FILE (if given) to the identities of the actors
 * file, by id. Each identity needs hashes in exactly one file: none means nobody can authenticate
 * as it, both means a rotation done in one file would silently leave the old key in the other.
 */
export function mergeActorKeys(
  policy: CheckedSource<RawActorsFile>,
  keys: CheckedSource<RawActorKeysFile> | null,
): { principals: KeyedPrincipal[]; issues: ActorsFileIssue[] } {
  const principals = [
    ...policy.data.actors.map((p, i) => ({ id: p.id, at: ['actors', i], own: p.api_keys_sha256 })),
    ...policy.data.admins.map((p, i) => ({ id: p.id, at: ['admins', i], own: p.api_keys_sha256 })),
  ].map(({ id, at, own }) => ({
    id,
    at,
    hashes: (own ?? []).map((hex, index) => ({ hex, source: policy, path: [...at, 'api_keys_sha256', index] })) as PlacedHash[],
  }));
  const keyDrafts = keys ? attachKeys(principals, policy, keys) : [];
  // An actor or admin named by OAuth token subjects can authenticate without a key.
  const tokenOnly = new Set([
    ...policy.data.actors.flatMap((a, i) => (a.oauth_subjects ? [`actors.${i}`] : [])),
    ...policy.data.admins.flatMap((a, i) => (a.oauth_subjects ? [`admins.${i}`] : [])),
  ]);
  const orSubjects = policy.data.oauth ? ', or oauth_subjects: [...] for an identity that signs in with OAuth access tokens only' : '';
  const missing: Draft[] = principals
    .filter((p) => p.hashes.length === 0 && !tokenOnly.has(p.at.join('.')))
    .map((p) => ({
      code: 'missing_keys',
      path: [...p.at, 'api_keys_sha256'],
      found: keys ? `no key hashes for "${p.id}", neither here nor under keys: in ${keys.file}` : 'nothing (the field is missing)',
      expected: keys
        ? `an entry { id: ${p.id}, api_keys_sha256: [...] } in ${keys.file} (ONCEPORT_ACTOR_KEYS_FILE), or api_keys_sha256 here: ${KEY_HASH_EXPECTED}${orSubjects}`
        : `a list of key hashes (or ONCEPORT_ACTOR_KEYS_FILE naming a keys file that has them): ${KEY_HASH_EXPECTED}${orSubjects}`,
    }));
  return { principals, issues: [...locate(policy, missing), ...(keys ? locate(keys, keyDrafts) : [])] };
}

function attachKeys(
  principals: { id: string; at: PathSegment[]; hashes: PlacedHash[] }[],
  policy: CheckedSource<RawActorsFile>,
  keys: CheckedSource<RawActorKeysFile>,
): Draft[] {
  const drafts: Draft[] = [];
  const entrySeen = new Map<string, number>();
  keys.data.keys.forEach((entry, j) => {
    const first = entrySeen.get(entry.id);
    if (first !== undefined) {
      drafts.push({
        code: 'duplicate_id',
        path: ['keys', j, 'id'],
        found: `"${entry.id}", already given at keys[${first}]`,
        expected: 'one entry per id: list every key hash of an identity in its one entry',
      });
      return;
    }
    entrySeen.set(entry.id, j);
    // The first declaration when the actors file repeats an id (reported there as duplicate_id).
    const principal = principals.find((p) => p.id === entry.id);
    if (!principal) {
      drafts.push({
        code: 'unknown_id',
        path: ['keys', j, 'id'],
        found: `"${entry.id}", which ${policy.file} declares neither under actors: nor admins:`,
        expected: `the id of an actor or admin of ${policy.file} (declare it there, or remove this entry)`,
      });
      return;
    }
    if (principal.hashes.length > 0) {
      drafts.push({
        code: 'keys_in_both_files',
        path: ['keys', j, 'api_keys_sha256'],
        found: `key hashes for "${entry.id}", which ${policy.file} also lists at ${formatPath([...principal.at, 'api_keys_sha256'])}`,
        expected: `each identity's key hashes in one file only: remove api_keys_sha256 from ${policy.file} (or this entry)`,
      });
      return;
    }
    principal.hashes = entry.api_keys_sha256.map((hex, index) => ({ hex, source: keys, path: ['keys', j, 'api_keys_sha256', index] }));
  });
  return drafts;
}
