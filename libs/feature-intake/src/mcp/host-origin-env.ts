import { z } from 'zod';
import { normaliseHostEntry, normaliseOrigin } from './host-origin-policy';

/** A comma-separated list in one variable, each entry normalised; the error names the bad entry. */
function commaList(normalise: (entry: string) => string | null, what: string) {
  return z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return undefined;
      const entries: string[] = [];
      for (const raw of value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean)) {
        const entry = normalise(raw);
        if (entry === null) {
          ctx.addIssue({ code: 'custom', message: `"${raw.slice(0, 100)}" is not ${what}` });
          return z.NEVER;
        }
        entries.push(entry);
      }
      return entries;
    });
}

/** `/mcp`'s Host and Origin allow-lists (see `hostOriginPolicyOf` for the defaults when unset). */
export const hostOriginEnvShape = {
  ONCEPORT_ALLOWED_HOSTS: commaList(normaliseHostEntry, 'a host name with an optional :port (e.g. onceport.internal, localhost:3001)'),
  ONCEPORT_ALLOWED_ORIGINS: commaList(normaliseOrigin, 'an origin (scheme://host[:port], e.g. https://agents.example.com)'),
};
