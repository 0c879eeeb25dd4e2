import { Pool } from 'pg';
import { CliError, EXIT, messageOf } from '../cli/exit-codes';

/** A small pool on the event store, checked before use so "cannot connect" is exit 5 with the reason, not a stack trace. */
export async function openDatabase(url: string): Promise<Pool> {
  const pool = new Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 10_000 });
  // An idle client that loses its server emits 'error' on the pool; without a listener that would crash the process.
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1 FROM onceport.events LIMIT 0');
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw databaseError(url, error);
  }
}

export function databaseError(url: string, error: unknown): CliError {
  const code = (error as { code?: string }).code;
  const where = redact(url);
  if (code === '42P01' || code === '3F000')
    return new CliError(EXIT.unreachable, `no Onceport event store at ${where} (onceport.events does not exist)`);
  return new CliError(EXIT.unreachable, `cannot use the database at ${where}: ${messageOf(error)}`);
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable database URL)';
  }
}
