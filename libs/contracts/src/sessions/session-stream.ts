import { createHash } from 'node:crypto';

const SESSION_STREAM_PREFIX = 'session-';

export const SESSION_SUBJECT_PREFIX = 'onceport.session';

/**
 * The stream of one agent process's session grant: `session-<sha256(actor \n agentProcess)>`.
 * Hashed so that an arbitrary process id (an MCP session id, a hostname) can't shape stream ids,
 * and the newline keeps `("a", "b\nc")` and `("a\nb", "c")` apart — neither part may hold one.
 *
 * @example sessionStreamId('agent:deploy-bot', 'mcp-sess-91bd')
 */
export function sessionStreamId(actor: string, agentProcess: string): string {
  if (actor.includes('\n') || agentProcess.includes('\n'))
    throw new RangeError('sessionStreamId: actor and agent process may not contain a newline');
  return `${SESSION_STREAM_PREFIX}${createHash('sha256').update(`${actor}\n${agentProcess}`).digest('hex')}`;
}

export function isSessionStream(streamId: string): boolean {
  return /^session-[0-9a-f]{64}$/.test(streamId);
}
