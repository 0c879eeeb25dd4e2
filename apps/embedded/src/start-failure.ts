import { ActorsFileError, EnvConfigError } from '@onceport/config';
import { ToolContractError } from '@onceport/domain';

/** sysexits.h EX_CONFIG, as the distributed services exit on a bad variable, contract or actors file. */
export const EX_CONFIG = 78;
/** sysexits.h EX_SOFTWARE: something failed that the operator did not cause. */
export const EX_SOFTWARE = 70;

/**
 * A start that cannot go on, in a person's words: what failed and what to do about it. Everything
 * the embedded start can foresee is thrown as one of these, so the last line printed is never
 * `undefined` or a bare stack.
 */
export class StartFailure extends Error {
  constructor(
    readonly what: string,
    readonly fix: string,
    readonly exitCode: number = EX_CONFIG,
  ) {
    super(`${what}\n  fix: ${fix}`);
    this.name = 'StartFailure';
  }
}

/** The message and exit code for whatever stopped the start. */
export function describeStartFailure(error: unknown): { readonly message: string; readonly exitCode: number } {
  if (error instanceof StartFailure) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof EnvConfigError)
    return { message: `${error.message}\n  fix: set the variables named above (see README, "The embedded start")`, exitCode: EX_CONFIG };
  if (error instanceof ToolContractError)
    return { message: `${error.message}\n  fix: correct the contract files named above (ONCEPORT_CONTRACTS_DIR)`, exitCode: EX_CONFIG };
  if (error instanceof ActorsFileError)
    return {
      message: `${error.message}\n  fix: correct the actors file named above (ONCEPORT_ACTORS_FILE, ONCEPORT_ACTOR_KEYS_FILE)`,
      exitCode: EX_CONFIG,
    };
  const text = error instanceof Error ? (error.stack ?? error.message) : `a non-error value was thrown: ${String(error)}`;
  return { message: `unexpected failure: ${text}\n  fix: this is a bug; report it with the lines above`, exitCode: EX_SOFTWARE };
}

/** Turns a listen() EADDRINUSE into a failure that names the variable that moves the port. */
export function portInUse(error: unknown, port: number, variable: string): unknown {
  if ((error as NodeJS.ErrnoException | null)?.code !== 'EADDRINUSE') return error;
  return new StartFailure(
    `port ${port} on 127.0.0.1 is already in use by another program`,
    `stop that program, or set ${variable} to a free port (0 picks one)`,
  );
}
