import type { z } from 'zod';

export interface EnvProblem {
  readonly variable: string;
  readonly found: 'missing' | 'invalid';
  readonly expected: string;
  /** `NAME: missing; expected …` — never the value: variables often hold secrets. */
  readonly message: string;
}

/** Thrown once at start when the environment does not satisfy the app's schema. */
export class EnvConfigError extends Error {
  readonly code = 'ENV_CONFIG_INVALID' as const;
  readonly problems: readonly EnvProblem[];

  constructor(problems: readonly EnvProblem[]) {
    const count = problems.length === 1 ? '1 variable' : `${problems.length} variables`;
    super([`Invalid environment configuration (${count}):`, ...problems.map((p) => `  ${p.message}`)].join('\n'));
    this.name = 'EnvConfigError';
    this.problems = problems;
  }
}

function expectedText(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === 'invalid_value') return `one of ${issue.values.map(String).join(' | ')}`;
  return undefined;
}

/**
 * Validates a `process.env`-like object against an app's zod schema, once, at start. An empty
 * variable counts as unset (so `FOO=` in a compose file falls back to the default instead of
 * failing later). Reports every bad or missing variable together, naming what is expected.
 *
 * @example const env = loadEnvConfig(z.object({ ...commonEnvShape, PORT: port }), process.env);
 */
export function loadEnvConfig<S extends z.ZodObject>(
  schema: S,
  env: Readonly<Record<string, string | undefined>> = process.env,
): z.output<S> {
  const input: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') input[name] = value;
  }
  const result = schema.safeParse(input, { error: expectedText });
  if (result.success) return result.data;

  const byVariable = new Map<string, string[]>();
  for (const issue of result.error.issues) {
    const variable = String(issue.path[0] ?? '(environment)');
    byVariable.set(variable, [...(byVariable.get(variable) ?? []), issue.message]);
  }
  const problems = [...byVariable].map(([variable, messages]): EnvProblem => {
    const found = input[variable] === undefined ? 'missing' : 'invalid';
    const expected = [...new Set(messages)].join('; ');
    const shown = found === 'missing' ? 'missing' : 'invalid value (not shown)';
    return { variable, found, expected, message: `${variable}: ${shown}; expected ${expected}` };
  });
  throw new EnvConfigError(problems);
}
