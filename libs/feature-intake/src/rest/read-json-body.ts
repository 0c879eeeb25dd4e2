import type { IncomingMessage } from 'node:http';

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

/** Reads and parses a JSON body, refusing it (before parsing) once it passes `limit` bytes. */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw new BodyTooLargeError(limit);
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new MalformedJsonError((error as Error).message);
  }
}
