import { type IncomingMessage } from 'node:http';
import { Problem } from './problem';

/**
 * Reads a small JSON body ourselves: services start with Nest's body parser off (intake streams
 * its MCP bodies), and an admin request has no reason to be large.
 */
export async function readJsonBody(request: IncomingMessage, limitBytes = 16 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw new Problem(413, 'body_too_large', 'Body too large', `The body may be at most ${limitBytes} bytes.`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Problem(400, 'malformed_json', 'Malformed JSON', 'The body is not valid JSON; send e.g. {"reason": "…"}.');
  }
}
