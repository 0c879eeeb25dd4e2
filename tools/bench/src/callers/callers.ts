import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { request } from 'undici';

/** The same tool call (a deployment) made one way; resolves to the execution id where there is one. */
export type Caller = (project: string, version: string) => Promise<string | null>;

/** Straight to the target with undici: no gateway at all. */
export function directCaller(targetUrl: string): Caller {
  return async (project, version) => {
    const response = await request(`${targetUrl}/v1/projects/${project}/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ project, environment: 'staging', version }),
    });
    await response.body.text();
    if (response.statusCode >= 300) throw new Error(`target answered ${response.statusCode}`);
    return null;
  };
}

/** A finished call: the agent hears the result the moment intake writes it, before ResultDelivered is on record. */
const ANSWERED_DONE: ReadonlySet<string> = new Set(['completed', 'completed_result_not_delivered']);

export interface ToolAnswer {
  readonly execution_id?: string;
  readonly state?: string;
  readonly attached?: boolean;
  readonly replay?: boolean;
}

export interface McpCaller {
  readonly call: Caller;
  /** Any tool; resolves to the structured answer, or throws on a tool error. */
  callTool(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
  close(): Promise<void>;
}

/** One MCP agent (one session) over Streamable HTTP; `call` makes a deployment. */
export async function mcpCaller(url: string, apiKey: string | null, name: string): Promise<McpCaller> {
  const client = new Client({ name, version: '1.0.0' });
  const headers: Record<string, string> = apiKey ? { Authorization: `Bearer ${apiKey}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  const callTool = async (tool: string, args: Record<string, unknown>): Promise<ToolAnswer> => {
    const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 180_000 });
    if (result.isError) throw new Error(`tool call failed: ${JSON.stringify(result.content).slice(0, 300)}`);
    return (result.structuredContent ?? {}) as ToolAnswer;
  };
  return {
    callTool,
    async call(project, version) {
      const answer = await callTool('create_deployment', { project, environment: 'staging', version });
      if (answer.state !== undefined && !ANSWERED_DONE.has(answer.state))
        throw new Error(`execution ${answer.execution_id} answered in state ${answer.state}`);
      return answer.execution_id ?? null;
    },
    close: () => client.close(),
  };
}

/** `count` MCP agents at `url`, each with its own session, opened `atOnce` at a time (not timed). */
export async function openAgents(url: string, apiKey: string | null, count: number, namePrefix: string, atOnce = 32): Promise<McpCaller[]> {
  const agents: McpCaller[] = [];
  for (let i = 0; i < count; i += atOnce) {
    agents.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(atOnce, count - i) }, (_, j) => mcpCaller(url, apiKey, `${namePrefix}-${i + j}`)),
      )),
    );
  }
  return agents;
}

/** Milliseconds `work` took, from a monotonic clock. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await work();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}
