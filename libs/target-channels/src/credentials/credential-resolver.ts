import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export class MissingCredentialError extends Error {
  readonly code = 'missing_credential';
  constructor(
    readonly credentialRef: string,
    whereLooked: string,
  ) {
    super(`credential "${credentialRef}" is not configured (looked in ${whereLooked})`);
    this.name = 'MissingCredentialError';
  }
}

/**
 * Turns a contract's `credential_ref` into the secret, at dispatch time only: from the environment
 * (`ONCEPORT_CREDENTIAL_<REF>`, upper-cased, `-` and `.` as `_`) or from a file named after the ref
 * in a mounted directory (a Kubernetes secret volume). The value never leaves the dispatcher.
 */
export class CredentialResolver {
  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly directory: string | null = process.env['ONCEPORT_CREDENTIALS_DIR'] ?? null,
  ) {}

  resolve(credentialRef: string): string {
    const variable = `ONCEPORT_CREDENTIAL_${credentialRef.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
    const fromEnv = this.env[variable];
    if (fromEnv) return fromEnv;
    if (this.directory) {
      try {
        return readFileSync(join(this.directory, credentialRef), 'utf8').trim();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    throw new MissingCredentialError(credentialRef, this.directory ? `${variable} and ${this.directory}` : variable);
  }

  /** Every configured credential value, so tests and log redaction can look for leaks. */
  secretValues(): string[] {
    return Object.entries(this.env)
      .filter(([key, value]) => key.startsWith('ONCEPORT_CREDENTIAL_') && value)
      .map(([, value]) => value as string);
  }
}
