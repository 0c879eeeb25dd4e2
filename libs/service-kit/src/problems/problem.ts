import type { ServerResponse } from 'node:http';

/**
 * Where every problem type of Onceport lives: `https://onceport.dev/problems/<code in kebab-case>`.
 * The README's problem table documents each one; the `code` member carries the same name in
 * snake_case for programs that switch on it (the CLI does).
 */
export const PROBLEM_TYPE_BASE = 'https://onceport.dev/problems/';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** RFC 9457 problem details: the standard members, then `code` and any extension members. */
export interface ProblemDetails {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance?: string;
  readonly code: string;
  readonly [extension: string]: unknown;
}

/** A problem's code as programs read it: `body-too-large` and `body_too_large` are one code. */
export function problemCode(code: string): string {
  return code.replaceAll('-', '_');
}

export function problemType(code: string): string {
  return `${PROBLEM_TYPE_BASE}${problemCode(code).replaceAll('_', '-')}`;
}

/** The body of a problem answer; extension members never override a standard one. */
export function problemDetails(
  status: number,
  code: string,
  title: string,
  detail: string,
  extensions: Record<string, unknown> = {},
  instance?: string,
): ProblemDetails {
  return { ...extensions, type: problemType(code), title, status, detail, ...(instance ? { instance } : {}), code: problemCode(code) };
}

/**
 * An HTTP error as a value: a stable code, a status, a title and a sentence a human can act on.
 * Thrown from a controller, {@link ProblemDetailsFilter} writes it; else {@link writeProblem}.
 */
export class Problem extends Error {
  override readonly name = 'Problem';
  readonly code: string;

  constructor(
    readonly status: number,
    code: string,
    readonly title: string,
    readonly detail: string,
    readonly headers: Readonly<Record<string, string>> = {},
    readonly extensions: Readonly<Record<string, unknown>> = {},
  ) {
    super(detail);
    this.code = problemCode(code);
  }

  toJSON(instance?: string): ProblemDetails {
    return problemDetails(this.status, this.code, this.title, this.detail, this.extensions, instance);
  }
}

/** The occurrence, for `instance`: the request's path (never its query, which may carry what a log must not). */
function instanceOf(res: ServerResponse): string | undefined {
  const url = res.req?.url;
  return url ? url.split('?')[0]?.slice(0, 200) : undefined;
}

/** Answers with `application/problem+json`. */
export function sendProblem(
  res: ServerResponse,
  status: number,
  code: string,
  title: string,
  detail: string,
  extensions: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, { ...headers, 'Content-Type': PROBLEM_CONTENT_TYPE })
    .end(JSON.stringify(problemDetails(status, code, title, detail, extensions, instanceOf(res))));
}

export function writeProblem(res: ServerResponse, problem: Problem): void {
  sendProblem(res, problem.status, problem.code, problem.title, problem.detail, { ...problem.extensions }, { ...problem.headers });
}
