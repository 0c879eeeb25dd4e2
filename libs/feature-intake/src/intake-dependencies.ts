import type { ArgumentSealer, Keyring, ToolContract } from '@onceport/domain';
import type { OnceportRuntime } from '@onceport/runtime';

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
}

export interface IntakeDependencies {
  readonly runtime: OnceportRuntime;
  readonly contracts: ReadonlyMap<string, ToolContract>;
  readonly keyring: Keyring;
  /** Seals the arguments a contract marks `sensitive` before ExecutionAccepted is written. */
  readonly sealer: Pick<ArgumentSealer, 'seal'>;
  readonly actors: ActorAuthenticator;
  readonly settings: IntakeSettings;
}

export const INTAKE_DEPENDENCIES = Symbol('INTAKE_DEPENDENCIES');
