import type { Keyring, ToolContract } from '@onceport/domain';
import type { OnceportRuntime } from '@onceport/runtime';
import type { HostOriginPolicy } from './mcp/host-origin-policy';

/** Who is calling, as proven by a bearer API key (never taken from the request body). */
export interface AuthenticatedActor {
  readonly id: string;
}

export interface ActorAuthenticator {
  authenticate(bearerToken: string): AuthenticatedActor | null;
}

export interface IntakeSettings {
  /** How long a call waits for the outcome before answering with the state it is in. */
  readonly defaultWaitMs: number;
  readonly maxWaitMs: number;
  /** Bodies above this are refused with 413 before they are parsed. */
  readonly maxBodyBytes: number;
  /** On shutdown, how long calls in flight may still wait for their outcome. */
  readonly shutdownGraceMs: number;
  /** Which Host and Origin headers /mcp accepts (DNS-rebinding protection). */
  readonly hostOrigin: HostOriginPolicy;
  /** An MCP session idle this long is expired (404). */
  readonly sessionIdleMs: number;
  /** Resumed MCP streams one actor may hold open at once on this process; more → 429. */
  readonly resumedStreamsPerActor: number;
}

export interface IntakeDependencies {
  readonly runtime: OnceportRuntime;
  readonly contracts: ReadonlyMap<string, ToolContract>;
  readonly keyring: Keyring;
  readonly actors: ActorAuthenticator;
  readonly settings: IntakeSettings;
}

export const INTAKE_DEPENDENCIES = Symbol('INTAKE_DEPENDENCIES');
