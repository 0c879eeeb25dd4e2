import { z } from 'zod';
import { named } from '../../json-schema/component-schemas';

/** Where every problem type lives; the same base as the service kit's `PROBLEM_TYPE_BASE`. */
export const PROBLEM_TYPES = 'https://onceport.dev/problems/';

/** RFC 9457 problem details as every service answers an error (the service kit's `problemDetails`). */
export const ProblemDetails = named(
  'ProblemDetails',
  z
    .looseObject({
      type: z.url().describe(`${PROBLEM_TYPES}<code in kebab-case>`),
      title: z.string(),
      status: z.int().min(400).max(599),
      detail: z.string().describe('A sentence a person can act on; never internal error text.'),
      instance: z.string().optional().describe("The request's path."),
      code: z.string().describe('The same name in snake_case, for programs.'),
      errors: z
        .array(z.looseObject({ path: z.string(), message: z.string(), bound: z.string().optional() }))
        .optional()
        .describe('Each violation by path and bound (422), never by its value.'),
      correlation_id: z.string().optional().describe('500: `err_<uuid>`, the id of the log line with the real error.'),
      execution_id: z.string().optional(),
    })
    .describe('RFC 9457 problem details; extension members as the problem needs them.'),
);

/** @nestjs/terminus's answer. */
const HealthShape = {
  status: z.enum(['ok', 'error', 'shutting_down']),
  info: z.record(z.string(), z.unknown()).optional(),
  error: z.record(z.string(), z.unknown()).optional(),
  details: z.record(z.string(), z.unknown()),
};

export const Health = named('Health', z.looseObject(HealthShape));

export const Readiness = named(
  'Readiness',
  z.looseObject({
    ...HealthShape,
    checks: z.record(z.string(), z.string()).describe("Each check's `ok` or why not."),
  }),
);

export const OpenApiDocument = named(
  'OpenApiDocument',
  z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) }),
);
