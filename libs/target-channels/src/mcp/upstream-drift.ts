import type { McpToolContract } from '@onceport/domain';

/** What an upstream lists for one tool (its `tools/list` entry, the part compared). */
export interface UpstreamTool {
  readonly name: string;
  readonly inputSchema?: { readonly properties?: Record<string, unknown>; readonly required?: readonly string[] };
}

/** One contract whose upstream tool is gone or takes other arguments than the contract says. */
export interface UpstreamDrift {
  readonly contract: string;
  readonly upstream: string;
  readonly tool: string;
  readonly problem: string;
}

/**
 * Contracts that no longer match what their upstream offers: the tool is gone, or its input schema
 * has other properties or other required ones. Pure; the dispatcher reports each by name at start.
 * Only names are compared — an operator narrows types and patterns on purpose.
 */
export function upstreamDrift(contracts: readonly McpToolContract[], offered: readonly UpstreamTool[]): UpstreamDrift[] {
  const byName = new Map(offered.map((tool) => [tool.name, tool]));
  return contracts.flatMap((contract) => {
    const { upstream, tool } = contract.target;
    const at = { contract: contract.name, upstream: upstream.name, tool };
    const listed = byName.get(tool);
    if (!listed) return [{ ...at, problem: `the upstream no longer lists a tool named "${tool}"` }];
    const theirs = Object.keys(listed.inputSchema?.properties ?? {}).sort();
    const ours = Object.keys(contract.argumentsSchema.properties).sort();
    const problems: string[] = [];
    const added = theirs.filter((name) => !ours.includes(name));
    const removed = ours.filter((name) => !theirs.includes(name));
    if (added.length > 0) problems.push(`the upstream takes arguments the contract does not declare: ${added.join(', ')}`);
    if (removed.length > 0) problems.push(`the contract declares arguments the upstream no longer takes: ${removed.join(', ')}`);
    const newlyRequired = (listed.inputSchema?.required ?? []).filter((name) => !contract.argumentsSchema.required.includes(name));
    if (newlyRequired.length > 0)
      problems.push(`the upstream requires arguments the contract leaves optional: ${newlyRequired.join(', ')}`);
    return problems.map((problem) => ({ ...at, problem }));
  });
}
