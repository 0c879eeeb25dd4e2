import type { EntityManager } from '@mikro-orm/postgresql';
import type { ArgumentSealer, Keyring, ToolContract } from '@onceport/domain';
import type { OAuthResourceServer } from './auth/oauth/oauth-resource-server';
import type { ActorLimitsSource } from './limits/actor-limits.port';
import type { HostOriginPolicy } from './mcp/host-origin-policy';

/** Who is calling, as proven by a bearer API key or OAuth access token (never taken from the request body). */
export interface AuthenticatedActor {
  readonly id: string;
  /**
   * Set when an OAuth access token narrows the call to these tools (its `onceport:tool:<name>`
   * scopes); absent for API keys and un-narrowed tokens. Check it with `tokenAllowsTool`
   * (auth/oauth/tool-scope.ts) before a call is accepted.
   */
  readonly tokenTools?: ReadonlySet<string>;
}

export interface ActorAuthenticator {
  authenticate(bearerToken: string): AuthenticatedActor | null;
}

/** An operator's admin key or access token (runs: read any run, force a replay); the service kit's AdminAuth. */
export interface AdminAuthenticator {
  authenticate(
    authorization: string | undefined,
  ): Promise<{ readonly ok: true; readonly admin: { readonly id: string } } | { readonly ok: false }>;
}

export interface IntakeSettings {
  /** How long a call waits for the outcome before answering with the state it is in. */
  readonly defaultWaitMs: number;
  readonly maxWaitMs: number;
  /** Bodies above this are refused with 413 before they are parsed. */
  readonly maxBodyBytes: number;
  /** A call's serialized `arguments` above this are refused (-32602 / 422); below `maxBodyBytes`. */
  readonly maxArgumentBytes: number;
  /** On shutdown, how long calls in flight may still wait for their outcome. */
  readonly shutdownGraceMs: number;
  /** A JSON-RPC batch with more `tools/call`s than this is refused whole (-32600). */
  readonly maxBatchCalls: number;
  /** Which Host and Origin headers /mcp accepts (DNS-rebinding protection). */
  readonly hostOrigin: HostOriginPolicy;
  /** An MCP session idle this long is expired (404). */
  readonly sessionIdleMs: number;
  /** Resumed MCP streams one actor may hold open at once on this process; more → 429. */
  readonly resumedStreamsPerActor: number;
}

export interface IntakeDependencies {
  /** The relational side (sessions, agent processes, kept responses): fork it per unit of work. */
  readonly em: EntityManager;
  readonly contracts: ReadonlyMap<string, ToolContract>;
  readonly keyring: Keyring;
  /** Seals the arguments a contract marks `sensitive` before ExecutionAccepted is written. */
  readonly sealer: Pick<ArgumentSealer, 'seal'>;
  readonly actors: ActorAuthenticator;
  /** Admins, by key or operator's token; absent where no admins are configured. */
  readonly admins?: AdminAuthenticator;
  /** OAuth access tokens beside API keys (the actors file's `oauth:` section); absent: API keys only. */
  readonly oauth?: OAuthResourceServer;
  /** Each actor's rate and in-flight limits (the actors file). */
  readonly limits: ActorLimitsSource;
  readonly settings: IntakeSettings;
}

export const INTAKE_DEPENDENCIES = Symbol('INTAKE_DEPENDENCIES');
