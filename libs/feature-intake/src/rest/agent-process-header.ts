import type { AuthenticatedActor } from '../intake-dependencies';
import type { RestAgentProcesses } from './agent-processes';

const HOW_TO_GET_ONE =
  'Get one with POST /v1/agent-processes (same API key) when the agent process starts, and send that id; or send no Onceport-Agent-Process header, and the call counts as the actor itself.';

export type AgentProcessCheck =
  | { readonly ok: true; readonly agentProcess: string | null }
  | { readonly ok: false; readonly status: 400 | 403; readonly type: string; readonly title: string; readonly detail: string };

/**
 * The agent process a REST call may name: only one intake issued to this very actor. A name the
 * client made up (or one granted to another actor) would let any holder of a key step into a
 * session a human granted to a different process (DESIGN.md §6).
 */
export async function checkAgentProcessHeader(
  header: string | null,
  actor: AuthenticatedActor,
  processes: RestAgentProcesses,
): Promise<AgentProcessCheck> {
  if (header === null) return { ok: true, agentProcess: null };
  const owner = await processes.ownerOf(header);
  if (owner === null) {
    return {
      ok: false,
      status: 400,
      type: 'unknown-agent-process',
      title: 'Unknown agent process',
      detail: `Onceport-Agent-Process must name an agent process Onceport issued; ${JSON.stringify(header.slice(0, 80))} was never issued. ${HOW_TO_GET_ONE}`,
    };
  }
  if (owner !== actor.id) {
    return {
      ok: false,
      status: 403,
      type: 'agent-process-of-another-actor',
      title: 'Agent process of another actor',
      detail: `Onceport-Agent-Process names an agent process issued to another actor, not to ${actor.id}. ${HOW_TO_GET_ONE}`,
    };
  }
  return { ok: true, agentProcess: header };
}
