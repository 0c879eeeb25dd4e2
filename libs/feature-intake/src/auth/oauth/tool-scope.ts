import type { AuthenticatedActor } from '../../intake-dependencies';

/**
 * How a token's scopes narrow what an actor may call. A token carrying one or more
 * `onceport:tool:<name>` scopes may call only those tools — and still only those the actors file
 * allows the actor (authorization checks that, as for API keys). A token carrying none is not
 * narrowed. So an operator can hand one agent process a token for `get_build_status` alone, while
 * the same client's other tokens keep the actor's full list.
 */
export const TOOL_SCOPE_PREFIX = 'onceport:tool:';

/** The scope that lets a narrowed token call `tool`. */
export function toolScope(tool: string): string {
  return `${TOOL_SCOPE_PREFIX}${tool}`;
}

/** The tools a token's scopes narrow it to, or undefined when they do not narrow it. */
export function toolsOfScopes(scopes: readonly string[]): ReadonlySet<string> | undefined {
  const tools = scopes.filter((scope) => scope.startsWith(TOOL_SCOPE_PREFIX)).map((scope) => scope.slice(TOOL_SCOPE_PREFIX.length));
  return tools.length > 0 ? new Set(tools) : undefined;
}

/**
 * May this caller's credential call `tool`? True for API keys and un-narrowed tokens; the actor's
 * own tool list is checked by authorization, as for every call.
 *
 * @example if (!tokenAllowsTool(actor, name)) return refuse(toolScopeRefusal(deps, [name]));
 */
export function tokenAllowsTool(actor: AuthenticatedActor, tool: string): boolean {
  return actor.tokenTools === undefined || actor.tokenTools.has(tool);
}

/**
 * The tools a JSON-RPC body (one message or a batch) calls with `tools/call` that the caller's token
 * does not cover, each once; `alwaysAllowed` names tools no token scope governs (e.g. a built-in
 * status tool that only reads the caller's own executions). Looks only at the shape, so it can run
 * before any SDK parses the body.
 *
 * @example const outside = toolsOutsideTokenScope(actor, body, ['onceport_execution_status']);
 */
export function toolsOutsideTokenScope(actor: AuthenticatedActor, body: unknown, alwaysAllowed: readonly string[] = []): string[] {
  if (actor.tokenTools === undefined) return [];
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  const called = messages.flatMap((message) => {
    if (typeof message !== 'object' || message === null) return [];
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } | null };
    const name = method === 'tools/call' && typeof params === 'object' && params !== null ? params.name : undefined;
    return typeof name === 'string' ? [name] : [];
  });
  return [...new Set(called)].filter((tool) => !alwaysAllowed.includes(tool) && !tokenAllowsTool(actor, tool));
}
