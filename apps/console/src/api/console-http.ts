import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError, MalformedJsonError, PROBLEM_CONTENT_TYPE, problemDetails, readJsonBody } from '@onceport/service-kit';
import { type UpstreamAnswer, UpstreamUnavailableError } from '../upstream/upstream-client';

const MAX_BODY = 16 * 1024;
const MAX_REASON = 1_000;

/** A refusal the console answers itself, before any service is asked: an RFC 9457 problem with a stable code. */
export class ConsoleRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail: string,
  ) {
    super(detail);
  }
}

export function sendProblemOf(res: ServerResponse, status: number, code: string, title: string, detail: string): void {
  res.writeHead(status, { 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'no-store' });
  res.end(JSON.stringify(problemDetails(status, code, title, detail)));
}

/** A service's answer, passed on as it came (its status, its JSON or problem). */
export function relay(res: ServerResponse, answer: UpstreamAnswer): void {
  const problem = answer.status >= 400 && typeof answer.body === 'object' && answer.body !== null && 'type' in answer.body;
  res.writeHead(answer.status, { 'content-type': problem ? PROBLEM_CONTENT_TYPE : 'application/json', 'cache-control': 'no-store' });
  res.end(answer.body === null ? '' : JSON.stringify(answer.body));
}

/** Runs a handler, answering its refusals and an unreachable service as problems; anything else is a bug and is rethrown. */
export async function answering(res: ServerResponse, handler: () => Promise<void>): Promise<void> {
  try {
    await handler();
  } catch (error) {
    if (error instanceof ConsoleRefusal) return sendProblemOf(res, error.status, error.code, error.title, error.detail);
    if (error instanceof UpstreamUnavailableError)
      return sendProblemOf(res, 502, 'service_unavailable', 'A service did not answer', `${error.message}. Try again in a moment.`);
    throw error;
  }
}

/** The request's JSON object (small, bounded); a clear refusal otherwise. */
export async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = await readJsonBody(req, MAX_BODY, { allowEmpty: true });
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      throw new ConsoleRefusal(413, 'body_too_large', 'Body too large', `The body may be at most ${MAX_BODY} bytes.`);
    if (error instanceof MalformedJsonError)
      throw new ConsoleRefusal(400, 'malformed_json', 'Malformed JSON', 'The body must be a JSON object.');
    throw error;
  }
  if (parsed === undefined) return {};
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ConsoleRefusal(400, 'malformed_json', 'Malformed JSON', 'The body must be a JSON object.');
  return parsed as Record<string, unknown>;
}

/** A person's reason for a decision: required, 1–1000 characters, not only spaces. */
export function reasonOf(body: Record<string, unknown>): string {
  const reason = body['reason'];
  if (typeof reason !== 'string' || reason.trim() === '' || reason.length > MAX_REASON)
    throw new ConsoleRefusal(400, 'reason_required', 'A reason is required', `"reason": say why, in 1–${MAX_REASON} characters.`);
  return reason;
}

/** A path segment the console forwards: checked against its pattern, so nothing odd reaches a service's URL. */
export function segment(value: string, pattern: RegExp, what: string): string {
  if (!pattern.test(value))
    throw new ConsoleRefusal(400, 'invalid_id', `Invalid ${what}`, `${JSON.stringify(value.slice(0, 120))} is not a ${what}.`);
  return encodeURIComponent(value);
}

export const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
export const APPROVAL_ID = new RegExp(`^apr_${ULID}$`);
export const EXECUTION_ID = new RegExp(`^exe_${ULID}$`);
export const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;
export const TOOL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
