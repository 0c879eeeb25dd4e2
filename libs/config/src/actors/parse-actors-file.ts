import { createHash } from 'node:crypto';
import { type ActorsFileIssue, ActorsFileError } from './actors-file-error';
import { KNOWN_FIELDS, RawActorKeysFile, RawActorsFile } from './actors-file.schema';
import { type ActorsFile } from './actors-file.types';
import { type ActorLimitsTable, BUILT_IN_ACTOR_LIMITS, resolveLimits } from './actor-limits';
import { type PathSegment } from '@onceport/domain';
import { locate, readChecked } from './checked-source';
import { findDuplicates } from './find-duplicates';
import { type KeyedPrincipal, mergeActorKeys } from './merge-actor-keys';
import { checkOAuthSubjects, oauthSettingsOf } from './oauth-settings';

/** The text of ONCEPORT_ACTOR_KEYS_FILE and its name, for messages. */
export interface ActorKeysText {
  readonly text: string;
  readonly file: string;
}

/**
 * Parses the actors file, and the keys file when the key hashes are kept apart from the policy.
 * Pure apart from hashing: the caller reads the bytes. Throws an {@link ActorsFileError} listing
 * every problem in both files, each naming the file, the field path, what was found and what is
 * expected. Key hashes are never echoed: a "hash" that fails validation is often a plain key
 * pasted by mistake.
 *
 * @example const actors = parseActorsFile(await readFile(path, 'utf8'), path);
 */
export function parseActorsFile(text: string, file: string, keys?: ActorKeysText): ActorsFile {
  const policy = readChecked(text, file, RawActorsFile, policyFieldsAt);
  const keyed = keys ? readChecked(keys.text, keys.file, RawActorKeysFile, keysFieldsAt) : null;
  const unreadable = [...policy.issues, ...(keyed?.issues ?? [])];
  if (!policy.source || (keyed && !keyed.source)) throw new ActorsFileError(unreadable);
  const merged = mergeActorKeys(policy.source, keyed?.source ?? null);
  const issues: ActorsFileIssue[] = [
    ...merged.issues,
    ...findDuplicates(merged.principals, policy.source),
    ...locate(policy.source, checkOAuthSubjects(policy.source.data)),
  ];
  if (issues.length > 0) throw new ActorsFileError(issues);
  const hashesAt = (...at: PathSegment[]): string[] => principalAt(merged.principals, at).hashes.map((h) => h.hex.toLowerCase());
  return {
    file,
    // The policy alone: rotating a key in the keys file is not a policy change.
    policyVersion: createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 12),
    actors: policy.source.data.actors.map((a, i) => ({
      id: a.id,
      apiKeysSha256: hashesAt('actors', i),
      tools: a.tools,
      sessionGrant: a.session_grant,
    })),
    admins: policy.source.data.admins.map((a, i) => ({ id: a.id, apiKeysSha256: hashesAt('admins', i) })),
    limits: limitsTable(policy.source.data),
    oauth: oauthSettingsOf(policy.source.data),
  };
}

function limitsTable(data: RawActorsFile): ActorLimitsTable {
  const defaults = resolveLimits(data.defaults?.limits, BUILT_IN_ACTOR_LIMITS);
  return { defaults, byActor: new Map(data.actors.map((a) => [a.id, resolveLimits(a.limits, defaults)])) };
}

function principalAt(principals: readonly KeyedPrincipal[], at: readonly PathSegment[]): KeyedPrincipal {
  const found = principals.find((p) => p.at[0] === at[0] && p.at[1] === at[1]);
  if (!found) throw new Error(`no principal at ${at.join('.')}`); // merged from the same lists: cannot happen
  return found;
}

function policyFieldsAt(path: readonly PathSegment[]): readonly string[] {
  if (path.length === 0) return KNOWN_FIELDS.file;
  if (path.at(-1) === 'limits') return KNOWN_FIELDS.limits;
  if (path[0] === 'oauth') return KNOWN_FIELDS.oauth;
  if (path[0] === 'defaults') return KNOWN_FIELDS.defaults;
  return path[0] === 'admins' ? KNOWN_FIELDS.admin : KNOWN_FIELDS.actor;
}

function keysFieldsAt(path: readonly PathSegment[]): readonly string[] {
  return path.length === 0 ? KNOWN_FIELDS.keysFile : KNOWN_FIELDS.keys;
}
