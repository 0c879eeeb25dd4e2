import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Json } from './effect-ledger';

export const MAX_REQUEST_BYTES = 1024 * 1024;

/** The whole request body, or null when it is over the cap (the caller answers 413). */
export async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** JSON when it parses, the text otherwise (a test may send anything), null when empty. */
export function bodyValue(raw: Buffer): Json {
  if (raw.length === 0) return null;
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text; // not JSON: recorded verbatim
  }
}

export function sendJson(res: ServerResponse, status: number, value: Json, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** RFC 9457 problem details. */
export function sendProblem(res: ServerResponse, status: number, title: string, detail: string): void {
  if (res.destroyed || res.headersSent) return;
  const body = JSON.stringify({ type: 'about:blank', title, status, detail });
  res.writeHead(status, { 'content-type': 'application/problem+json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
