import { timingSafeEqual } from 'node:crypto';
import { type Actor, type ActorsFile, type Admin, actorMayUse } from './actors-file.types';
import type { ActorLimits } from './actor-limits';
import { hashApiKey } from './api-key';
import { loadActorsFile } from './load-actors-file';
import type { OAuthSettings } from './oauth-settings';

interface KeyEntry<P> {
  readonly digest: Buffer;
  readonly principal: P;
}

/**
 * Who is calling, and what they may do. Tokens are hashed and compared with every known hash in
 * constant time (no early exit), so neither a hit nor its position shows in the timing. Tokens are
 * never stored, returned or logged.
 *
 * @example const actor = directory.authenticate(bearerToken(request.headers.authorization));
 */
export class ActorDirectory {
  private readonly actorsById: ReadonlyMap<string, Actor>;
  private readonly actorKeys: readonly KeyEntry<Actor>[];
  private readonly adminKeys: readonly KeyEntry<Admin>[];

  constructor(readonly source: ActorsFile) {
    this.actorsById = new Map(source.actors.map((actor) => [actor.id, actor]));
    this.actorKeys = keyEntries(source.actors);
    this.adminKeys = keyEntries(source.admins);
  }

  /** `keysPath`: ONCEPORT_ACTOR_KEYS_FILE, when the key hashes are kept apart from the policy. */
  static async load(path: string, keysPath?: string): Promise<ActorDirectory> {
    return new ActorDirectory(await loadActorsFile(path, keysPath));
  }

  /** The actors file's version (the policy, not the keys file), recorded with every decision taken under it. */
  get policyVersion(): string {
    return this.source.policyVersion;
  }

  /** The actor a bearer token belongs to, or null. Admin keys do not authenticate actors. */
  authenticate(bearerToken: string | null | undefined): Actor | null {
    return match(this.actorKeys, bearerToken);
  }

  /** The admin a bearer token belongs to, or null. Actor keys do not authenticate admins. */
  authenticateAdmin(bearerToken: string | null | undefined): Admin | null {
    return match(this.adminKeys, bearerToken);
  }

  /** How OAuth access tokens are accepted (the file's `oauth:` section), or null: API keys only. */
  get oauth(): OAuthSettings | null {
    return this.source.oauth;
  }

  /**
   * The actor a verified token's subject (the value of `oauth.actor_claim`) names, or null. Only
   * call it with a claim from a token whose signature, issuer, audience and lifetime were checked.
   */
  actorForOAuthSubject(subject: string): Actor | null {
    const id = this.source.oauth?.subjects.get(subject);
    return id === undefined ? null : this.actor(id);
  }

  /**
   * The admin a verified operator token's subject (the value of `oauth.admin_claim`) names, or null.
   * Only call it with a claim from a token whose signature, issuer, audience, lifetime and admin
   * scope were checked.
   */
  adminForOAuthSubject(subject: string): Admin | null {
    const id = this.source.oauth?.adminSubjects.get(subject);
    return id === undefined ? null : (this.source.admins.find((admin) => admin.id === id) ?? null);
  }

  actor(id: string): Actor | null {
    return this.actorsById.get(id) ?? null;
  }

  /** The actor's rate and in-flight limits; the file's defaults for an id it does not declare. */
  limitsOf(actorId: string): ActorLimits {
    return this.source.limits.byActor.get(actorId) ?? this.source.limits.defaults;
  }

  /** An actor missing from the file may call nothing. */
  mayUse(actorId: string, tool: string): boolean {
    return actorMayUse(this.actor(actorId), tool);
  }
}

function keyEntries<P extends { readonly apiKeysSha256: readonly string[] }>(principals: readonly P[]): KeyEntry<P>[] {
  return principals.flatMap((principal) => principal.apiKeysSha256.map((hex) => ({ digest: Buffer.from(hex, 'hex'), principal })));
}

function match<P>(entries: readonly KeyEntry<P>[], token: string | null | undefined): P | null {
  if (!token) return null;
  const digest = Buffer.from(hashApiKey(token), 'hex');
  let found: P | null = null;
  for (const entry of entries) {
    // Every entry is compared; `found` is only assigned, never used to stop early.
    if (timingSafeEqual(entry.digest, digest) && found === null) found = entry.principal;
  }
  return found;
}
