import { RunId, RunTrigger } from '@onceport/contracts';
import type { RunsQuery } from '@onceport/read-models';
import { z } from 'zod';

export const MAX_RUNS_PAGE = 200;
const DEFAULT_RUNS_PAGE = 50;

/** An actor id as the actors file names it: printable, without spaces, bounded (it reaches an index and a log). */
const ActorFilter = z.string().regex(/^[\x21-\x7e]{1,200}$/, 'expected an actor id: 1–200 printable characters without spaces');
const Limit = z
  .string()
  .regex(/^\d{1,4}$/, `expected a whole number 1–${MAX_RUNS_PAGE}`)
  .transform(Number)
  .pipe(z.number().min(1, `expected a whole number 1–${MAX_RUNS_PAGE}`).max(MAX_RUNS_PAGE, `at most ${MAX_RUNS_PAGE}`));

const ListQuery = z
  .object({
    limit: Limit.optional(),
    actor: ActorFilter.optional(),
    trigger: RunTrigger.optional(),
    cursor: RunId.optional(),
  })
  .strict();

export interface QueryError {
  readonly path: string;
  readonly message: string;
}

/** `GET /v1/runs`'s query string checked: every value bounded, an unknown parameter named; errors as a problem lists them. */
export function parseRunsListQuery(raw: Readonly<Record<string, unknown>>): { query: RunsQuery } | { errors: QueryError[] } {
  const parsed = ListQuery.safeParse(raw);
  if (!parsed.success)
    return {
      errors: parsed.error.issues.slice(0, 10).map((issue) => ({
        path: issue.code === 'unrecognized_keys' ? issue.keys.map((key) => key.slice(0, 64)).join(', ') : String(issue.path[0] ?? ''),
        message: issue.code === 'unrecognized_keys' ? 'unknown parameter; expected limit, actor, trigger, cursor' : issue.message,
      })),
    };
  const { limit, actor, trigger, cursor } = parsed.data;
  return {
    query: {
      limit: limit ?? DEFAULT_RUNS_PAGE,
      ...(actor === undefined ? {} : { actor }),
      ...(trigger === undefined ? {} : { trigger }),
      ...(cursor === undefined ? {} : { after: cursor }),
    },
  };
}
