import { type IncomingMessage } from 'node:http';
import { BodyTooLargeError, MalformedJsonError, readJsonBody as readSharedJsonBody } from '@onceport/runtime';
import { Problem } from './problem';

/** An admin request's small JSON body (may be empty), its refusals as problem details. */
export async function readJsonBody(request: IncomingMessage, limitBytes = 16 * 1024): Promise<unknown> {
  try {
    return await readSharedJsonBody(request, limitBytes, { allowEmpty: true });
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new Problem(413, 'body_too_large', 'Body too large', `The body may be at most ${limitBytes} bytes.`);
    if (error instanceof MalformedJsonError) throw new Problem(400, 'malformed_json', 'Malformed JSON', 'The body is not valid JSON; send e.g. {"reason": "…"}.');
    throw error;
  }
}
