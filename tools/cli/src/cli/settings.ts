import { readFileSync } from 'node:fs';
import { CliError, EXIT, usageError } from './exit-codes';
import type { CliIo } from './cli-io';
import { type Parsed, stringOption } from './parse-options';

export const SERVICES = {
  authorization: { option: 'authorization-url', env: 'ONCEPORT_AUTHORIZATION_URL', fallback: 'http://127.0.0.1:3002' },
  reconciler: { option: 'reconciler-url', env: 'ONCEPORT_RECONCILER_URL', fallback: 'http://127.0.0.1:3004' },
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
  const file = stringOption(parsed, 'admin-key-file');
  if (file !== undefined) {
    let key: string;
    try {
      key = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw usageError(`--admin-key-file: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    if (key === '') throw new CliError(EXIT.auth, `--admin-key-file: ${file} is empty`);
    return key;
  }
  const key = io.env['ONCEPORT_ADMIN_KEY']?.trim();
  if (!key) throw new CliError(EXIT.auth, 'no admin key: set ONCEPORT_ADMIN_KEY or pass --admin-key-file <path>');
  return key;
}

export const DATABASE_OPTIONS = { 'database-url': { type: 'string' } } as const;

export function databaseUrl(parsed: Parsed, io: CliIo): string {
  const url = stringOption(parsed, 'database-url') ?? io.env['DATABASE_URL'];
  if (!url) throw usageError('no database: pass --database-url <postgres://…> or set DATABASE_URL');
  return url;
}
