import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ExecutionNotFoundError } from '../call-tool/call-tool.errors';
import type { McpRequestScope, McpServerTools, McpServices } from './mcp-server.factory';

/** The params every `tasks/*` method names its task by (an execution id; bounded before it is looked up). */
export const TaskParams = z.object({ taskId: z.string().max(64) }).passthrough();
/** Results are built here, not parsed: the schema only types the handler. */
export const AnyResult = z.object({}).passthrough();

/**
 * A task's execution as the calling actor may see it, for both eras' `tasks/*` handlers: another
 * actor's execution is as unknown as one that never existed (-32602 "Task not found").
 */
export function taskLookup(services: McpServices, scope: McpRequestScope, tools: McpServerTools) {
  return async (taskId: string) => {
    try {
      return await services.query.status(taskId, scope.actor, { attached: false });
    } catch (error) {
      if (error instanceof ExecutionNotFoundError)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${taskId}`, { code: error.code });
      throw tools.toMcpError(error);
    }
  };
}
