import type { ActorLimitsTable } from './actor-limits';
import type { OAuthSettings } from './oauth-settings';

/** How a new agent process of an actor gets its session grant (DESIGN.md §6). */
export type SessionGrantMode = 'automatic' | 'human';

/** An agent identity: who may call which tools. */
export interface Actor {
  /** The authenticated identity that enters fingerprints, e.g. `agent:deploy-bot`. */
  readonly id: string;
  /** Lower-case hex SHA-256 of each accepted API key; several while a key rotates. */
  readonly apiKeysSha256: readonly string[];
  /** `'*'`: every tool; otherwise the tools it may call (possibly none). */
  readonly tools: '*' | readonly string[];
  readonly sessionGrant: SessionGrantMode;
}

/** An operator of the admin API (vault lock, later approvals). Admins call no tools. */
export interface Admin {
  readonly id: string;
  readonly apiKeysSha256: readonly string[];
}

export interface ActorsFile {
  readonly file: string;
  /** Short SHA-256 of the file's bytes: recorded with every decision taken under it. */
  readonly policyVersion: string;
  readonly actors: readonly Actor[];
  readonly admins: readonly Admin[];
  /** Each actor's rate and in-flight limits, defaults resolved (see actor-limits.ts). */
  readonly limits: ActorLimitsTable;
  /** Bearer JWTs accepted beside API keys (the `oauth:` section); null: API keys only. */
  readonly oauth: OAuthSettings | null;
}

/** May this actor call this tool? An actor not in the file may call nothing (the caller passes null). */
export function actorMayUse(actor: Actor | null | undefined, tool: string): boolean {
  if (!actor) return false;
  return actor.tools === '*' || actor.tools.includes(tool);
}
