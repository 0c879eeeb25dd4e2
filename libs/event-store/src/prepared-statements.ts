import { Client } from 'pg';

/**
 * Distinct statement texts one process prepares. Beyond it a text runs unnamed: a text built with
 * values inside it would otherwise leave a prepared statement per variant on every connection.
 */
export const MAX_PREPARED_TEXTS = 256;

const namesByText = new Map<string, string>();

/** The process-wide name of `text` as a prepared statement, or none once the bound is reached. */
export function preparedNameOf(text: string): string | undefined {
  const known = namesByText.get(text);
  if (known !== undefined || namesByText.size >= MAX_PREPARED_TEXTS) return known;
  const name = `onceport_${namesByText.size + 1}`;
  namesByText.set(text, name);
  return name;
}

/**
 * A pg client that sends every parameterised query as a named prepared statement, so PostgreSQL
 * parses and plans each text once per connection instead of on every call (pg's default is an
 * unnamed statement, parsed and planned each time). Texts without values still go through the simple
 * protocol: they may hold several statements (migrations).
 */
export class PreparingClient extends Client {
  override query(...args: unknown[]): never {
    const [config, values, callback] = args;
    if (typeof config === 'string' && Array.isArray(values)) {
      const name = preparedNameOf(config);
      if (name !== undefined) return this.forward({ text: config, values, name }, callback);
    }
    return this.forward(...args);
  }

  private forward(...args: unknown[]): never {
    return (Client.prototype.query as (...forwarded: unknown[]) => never).apply(this, args);
  }
}
