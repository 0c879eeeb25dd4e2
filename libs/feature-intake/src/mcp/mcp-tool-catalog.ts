import type { Tool } from '@modelcontextprotocol/server';
import type { ToolContract } from '@onceport/domain';
import type { McpEra } from './mcp-server.factory';

export const EXECUTION_STATUS_TOOL = 'onceport_execution_status';

/** `tools/list`: every contract with its JSON Schema and honest annotations, plus the built-in status tool. */
export function toolCatalog(contracts: ReadonlyMap<string, ToolContract>, era: McpEra = 'legacy'): Tool[] {
  const tools: Tool[] = [...contracts.values()].map((contract) => ({
    name: contract.name,
    title: contract.title,
    description: `${contract.description}\n\nEffect: ${describeEffect(contract)}. Every call gets an execution id; a retry of the same call attaches to it instead of running twice.`,
    inputSchema: contract.argumentsSchema as Tool['inputSchema'],
    // 2025: a call may run as an MCP task, the task its execution (mcp-legacy-tasks.ts). 2026-07-28
    // has no per-tool flag: the server decides per call (mcp-task-extension.ts).
    ...(era === 'legacy' ? { execution: { taskSupport: 'optional' as const } } : {}),
    annotations: {
      title: contract.title,
      readOnlyHint: contract.effect === 'none',
      destructiveHint: contract.effect === 'irreversible' || contract.effect === 'remote_command',
      idempotentHint: contract.effect === 'none' || contract.effect === 'idempotent',
      openWorldHint: true,
    },
  }));
  tools.push({
    name: EXECUTION_STATUS_TOOL,
    title: 'Execution status',
    description:
      "Returns an execution's state, target status and stored result by execution id. Read-only; ask this instead of calling a tool again when an answer said the outcome is not yet known.",
    inputSchema: {
      type: 'object',
      properties: { execution_id: { type: 'string', pattern: '^exe_[0-9A-HJKMNP-TV-Z]{26}$' } },
      required: ['execution_id'],
      additionalProperties: false,
    },
    annotations: { title: 'Execution status', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  });
  return tools;
}

function describeEffect(contract: ToolContract): string {
  const declared = contract.effectDeclared ? contract.effect : `${contract.effect} (not declared: treated as the worst case)`;
  return contract.approval === 'per_use' ? `${declared}; each call needs a human approval` : declared;
}
