import type { ToolContract } from '@onceport/domain';

/** The label value for anything outside the closed set a metric allows (a tool no contract loaded here names). */
export const OTHER_LABEL = 'other';

/**
 * A tool name as a label: only names of the contracts this process loaded, so a series can never be
 * made up by a caller (an execution written under a contract removed since counts as `other`).
 */
export function toolLabel(contracts: ReadonlyMap<string, unknown>, tool: string): string {
  return contracts.has(tool) ? tool : OTHER_LABEL;
}

/**
 * Where a tool acts, as a label: the contract's HTTP origin, SSH host (and port) or MCP upstream
 * name — declared by the operator, never a path, an argument or anything an agent sent.
 */
export function targetLabel(contract: ToolContract | undefined): string {
  if (!contract) return OTHER_LABEL;
  switch (contract.channel) {
    case 'http':
      return contract.target.origin;
    case 'ssh':
      return contract.target.port === 22 ? contract.target.host : `${contract.target.host}:${contract.target.port}`;
    case 'mcp':
      return contract.target.upstream.name;
    default: {
      const _exhaustive: never = contract;
      return _exhaustive;
    }
  }
}
