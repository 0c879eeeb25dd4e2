import type { IncomingMessage } from 'node:http';
import { ClientAbortedError, isClientAbort } from './client-aborted';
import { Problem } from '../problems/problem';

export class BodyTooLargeError extends Error {
  readonly code = 'body_too_large';
  constructor(readonly limit: number) {
    super(`request body is larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

export class MalformedJsonError extends Error {
  readonly code = 'malformed_json';
  constructor(detail: string) {
    super(`request body is not valid JSON: ${detail}`);
    this.name = 'MalformedJsonError';
  }
}

export interface ReadJsonBodyOptions {
  /** An empty (or all-whitespace) body reads as `undefined` instead of being malformed. */
  readonly allowEmpty?: boolean;
}

/**
 * Reads and parses a JSON body, refusing it (before parsing, and before reading it all when the
 * declared length already says so) once it passes `limit` bytes. The services start with Nest's body
 * parser off: intake streams its MCP bodies, and every controller sets its own limit.
 */
export async function readJsonBody(req: IncomingMessage, limit: number, options: ReadJsonBodyOptions = {}): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new BodyTooLargeError(limit);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw error;
    if (isClientAbort(error)) throw new ClientAbortedError();
    throw error;
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (options.allowEmpty && text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new MalformedJsonError((error as Error).message);
  }
}

/**
 * A small JSON body (an admin request's; may be empty), its refusals as problems: 413 past the
 * limit, 400 when it is not JSON (`example` shows what to send).
 */
export async function readJsonBodyOrProblem(req: IncomingMessage, limitBytes = 16 * 1024, example = '{"reason": "…"}'): Promise<unknown> {
  try {
    return await readJsonBody(req, limitBytes, { allowEmpty: true });
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      throw new Problem(413, 'body_too_large', 'Body too large', `The body may be at most ${limitBytes} bytes.`);
    if (error instanceof MalformedJsonError)
      throw new Problem(400, 'malformed_json', 'Malformed JSON', `The body is not valid JSON; send e.g. ${example}.`);
    throw error;
  }
}
