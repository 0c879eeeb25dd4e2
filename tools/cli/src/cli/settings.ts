import { readFileSync } from 'node:fs';
import { CliError, EXIT, usageError } from './exit-codes';
import type { CliIo } from './cli-io';
import { type Parsed, stringOption } from './parse-options';

export const SERVICES = {
  authorization: { option: 'authorization-url', env: 'ONCEPORT_AUTHORIZATION_URL', fallback: 'http://127.0.0.1:3002' },
  reconciler: { option: 'reconciler-url', env: 'ONCEPORT_RECONCILER_URL', fallback: 'http://127.0.0.1:3004' },
  intake: { option: 'intake-url', env: 'ONCEPORT_INTAKE_URL', fallback: 'http://127.0.0.1:3001' },
} as const;

export type ServiceName = keyof typeof SERVICES;

export const ADMIN_OPTIONS = {
  'authorization-url': { type: 'string' },
  'reconciler-url': { type: 'string' },
  'admin-key-file': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const ADMIN_HELP = `Connection:
  --authorization-url <url>   authorization service (env ONCEPORT_AUTHORIZATION_URL, default ${SERVICES.authorization.fallback})
  --reconciler-url <url>      reconciler service (env ONCEPORT_RECONCILER_URL, default ${SERVICES.reconciler.fallback})
  --admin-key-file <path>     file holding the admin key (otherwise env ONCEPORT_ADMIN_KEY; never pass a key itself in argv)
  --json                      print the service's JSON answer`;

export function serviceUrl(parsed: Parsed, io: CliIo, service: ServiceName): URL {
  const { option, env, fallback } = SERVICES[service];
  const raw = stringOption(parsed, option) ?? io.env[env] ?? fallback;
  try {
    return new URL(raw);
  } catch {
    throw usageError(`--${option}: ${JSON.stringify(raw)} is not a URL`);
  }
}

/** The admin key from `--admin-key-file` or ONCEPORT_ADMIN_KEY: never from argv, where `ps` and shell history would show it. */
export function adminKey(parsed: Parsed, io: CliIo): string {
  const key = givenAdminKey(parsed, io);
  if (key === null) throw new CliError(EXIT.auth, 'no admin key: set ONCEPORT_ADMIN_KEY or pass --admin-key-file <path>');
  return key;
}

/** The admin key when one is given (a file option or ONCEPORT_ADMIN_KEY), else null: for commands that also take an agent key. */
export function givenAdminKey(parsed: Parsed, io: CliIo): string | null {
  return keyFrom(parsed, io, 'admin-key-file', 'ONCEPORT_ADMIN_KEY');
}

/** An agent's API key (the actor a run belongs to) from `--agent-key-file` or ONCEPORT_AGENT_KEY; null when neither is given. */
export function agentKey(parsed: Parsed, io: CliIo): string | null {
  return keyFrom(parsed, io, 'agent-key-file', 'ONCEPORT_AGENT_KEY');
}

/** A key from its file option (which wins) or its variable; null when neither is given. */
function keyFrom(parsed: Parsed, io: CliIo, option: string, variable: string): string | null {
  const file = stringOption(parsed, option);
  if (file !== undefined) {
    let key: string;
    try {
      key = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw usageError(`--${option}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    if (key === '') throw new CliError(EXIT.auth, `--${option}: ${file} is empty`);
    return key;
  }
  return io.env[variable]?.trim() || null;
}

export const DATABASE_OPTIONS = { 'database-url': { type: 'string' } } as const;

export function databaseUrl(parsed: Parsed, io: CliIo): string {
  const url = stringOption(parsed, 'database-url') ?? io.env['DATABASE_URL'];
  if (!url) throw usageError('no database: pass --database-url <postgres://…> or set DATABASE_URL');
  return url;
}
