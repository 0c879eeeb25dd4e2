/**
 * Hostile inputs, one per line of attack, each of which the gateway must refuse as a client error
 * (no 5xx, no -32603) without recording anything. Bodies are raw strings: some (20,000 nested
 * arrays) would overflow `JSON.stringify` in the test itself.
 */
export interface HostileInput {
  readonly name: string;
  readonly transport: 'mcp' | 'rest';
  readonly body: string;
  readonly headers?: Record<string, string>;
  /** REST only; default POST /v1/executions. */
  readonly method?: string;
  readonly path?: string;
  /** MCP only: send without the session headers. */
  readonly noSession?: boolean;
}

const deployArgs = { project: 'hostile', environment: 'staging', version: '1.0.0' };
const deep = (depth: number, open = '[', close = ']'): string => `${open.repeat(depth)}1${close.repeat(depth)}`;
const deepObjects = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

let rpcId = 1000;
/** A `tools/call` body; `params` replaces fields of a valid create_deployment call. */
function call(params: Record<string, unknown>, id: unknown = (rpcId += 1)): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'create_deployment', arguments: deployArgs, ...params },
  });
}
/** A call whose raw `arguments` text is spliced in (for bodies JSON.stringify cannot build). */
function callWithRawArguments(rawArguments: string): string {
  return `{"jsonrpc":"2.0","id":${(rpcId += 1)},"method":"tools/call","params":{"name":"create_deployment","arguments":${rawArguments}}}`;
}
const meta = (fields: Record<string, unknown>) => ({ _meta: fields });
const rest = (body: unknown): string => JSON.stringify(body);
const restCall = (fields: Record<string, unknown>): string => rest({ tool: 'create_deployment', arguments: deployArgs, ...fields });

const MCP: HostileInput[] = [
  { name: 'intent scope of 8 kB in _meta', transport: 'mcp', body: call(meta({ 'onceport/intent_scope': 's'.repeat(8192) })) },
  { name: 'intent scope of 201 characters in _meta', transport: 'mcp', body: call(meta({ 'onceport/intent_scope': 's'.repeat(201) })) },
  { name: 'intent scope that is an object', transport: 'mcp', body: call(meta({ 'onceport/intent_scope': { run: 1 } })) },
  { name: 'empty intent scope', transport: 'mcp', body: call(meta({ 'onceport/intent_scope': '' })) },
  { name: 'intent scope with a lone low surrogate', transport: 'mcp', body: call(meta({ 'onceport/intent_scope': 'run\uDC00' })) },
  { name: 'negative wait', transport: 'mcp', body: call(meta({ 'onceport/wait_ms': -1 })) },
  { name: 'wait as a string', transport: 'mcp', body: call(meta({ 'onceport/wait_ms': '1000' })) },
  { name: '_meta that is a string', transport: 'mcp', body: call({ _meta: 'scope' }) },
  { name: '20,000 nested arrays in arguments', transport: 'mcp', body: callWithRawArguments(`{"notes":${deep(20_000)}}`) },
  { name: '5,000 nested objects in arguments', transport: 'mcp', body: callWithRawArguments(deepObjects(5_000)) },
  { name: 'arguments one level deeper than allowed (33)', transport: 'mcp', body: callWithRawArguments(`{"notes":${deep(32)}}`) },
  { name: 'NUL in an argument value', transport: 'mcp', body: call({ arguments: { ...deployArgs, notes: 'a\u0000b' } }) },
  { name: 'NUL in an argument key', transport: 'mcp', body: call({ arguments: { ...deployArgs, 'no\u0000tes': 'x' } }) },
  { name: 'lone high surrogate in an argument', transport: 'mcp', body: call({ arguments: { ...deployArgs, notes: '\uD83D' } }) },
  { name: 'NUL in the tool name', transport: 'mcp', body: call({ name: 'create_deployment\u0000' }) },
  { name: 'arguments as an array', transport: 'mcp', body: call({ arguments: [deployArgs] }) },
  { name: 'arguments as a string', transport: 'mcp', body: call({ arguments: 'project=hostile' }) },
  { name: 'arguments as null', transport: 'mcp', body: call({ arguments: null }) },
  { name: 'arguments as a number', transport: 'mcp', body: call({ arguments: 42 }) },
  {
    name: 'arguments of 300 kB (above the argument ceiling, below the body limit)',
    transport: 'mcp',
    body: call({ arguments: { ...deployArgs, notes: 'n'.repeat(300 * 1024) } }),
  },
  { name: 'tool name of 10 kB', transport: 'mcp', body: call({ name: 't'.repeat(10_240) }) },
  { name: 'tool name that is a number', transport: 'mcp', body: call({ name: 7 }) },
  {
    name: 'tools/call without a name',
    transport: 'mcp',
    body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { arguments: deployArgs } }),
  },
  { name: 'unknown tool', transport: 'mcp', body: call({ name: 'launch_rocket' }) },
  { name: 'arguments that violate the contract', transport: 'mcp', body: call({ arguments: { ...deployArgs, project: 'Bad Name!' } }) },
  { name: 'JSON-RPC id of 10 kB', transport: 'mcp', body: call({}, 'i'.repeat(10_240)) },
  { name: 'JSON-RPC id 1.5', transport: 'mcp', body: call({}, 1.5) },
  { name: 'JSON-RPC id above 2^53', transport: 'mcp', body: call({}, 2 ** 60) },
  { name: 'JSON-RPC id that is an object', transport: 'mcp', body: call({}, { id: 1 }) },
  { name: 'JSON-RPC id holding NUL', transport: 'mcp', body: call({}, 'a\u0000b') },
  {
    name: 'params that are an array',
    transport: 'mcp',
    body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: ['create_deployment', deployArgs] }),
  },
  {
    name: 'params that are a string (tools/list)',
    transport: 'mcp',
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: 'all' }),
  },
  { name: 'params null', transport: 'mcp', body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: null }) },
  {
    name: 'tasks/get whose params the SDK schema refuses',
    transport: 'mcp',
    body: JSON.stringify({ jsonrpc: '2.0', id: 14, method: 'tasks/get', params: { taskId: 5 } }),
  },
  { name: 'unknown method', transport: 'mcp', body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/explode', params: {} }) },
  { name: 'method that is a number', transport: 'mcp', body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 42 }) },
  { name: 'jsonrpc "1.0"', transport: 'mcp', body: JSON.stringify({ jsonrpc: '1.0', id: 11, method: 'tools/list' }) },
  { name: 'empty batch', transport: 'mcp', body: '[]' },
  { name: 'batch holding one bad call', transport: 'mcp', body: `[${call({})},${call({ arguments: [] })}]` },
  { name: 'malformed JSON', transport: 'mcp', body: '{"jsonrpc": "2.0", "method": ' },
  { name: 'body that is JSON null', transport: 'mcp', body: 'null' },
  { name: 'body that is a number', transport: 'mcp', body: '42' },
  {
    name: 'lone surrogate in initialize clientInfo',
    transport: 'mcp',
    noSession: true,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 12,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: '\uD800', version: '1' } },
    }),
  },
  {
    name: 'initialize whose params have the wrong types',
    transport: 'mcp',
    noSession: true,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 13,
      method: 'initialize',
      params: { protocolVersion: 5, capabilities: 'all', clientInfo: [] },
    }),
  },
  { name: 'Mcp-Session-Id of 4 kB', transport: 'mcp', body: call({}), headers: { 'mcp-session-id': 'x'.repeat(4096) } },
  {
    name: 'Mcp-Session-Id never issued',
    transport: 'mcp',
    body: call({}),
    headers: { 'mcp-session-id': '00000000-0000-4000-8000-000000000000' },
  },
  { name: 'actor claim of another actor in _meta', transport: 'mcp', body: call(meta({ 'onceport/actor': 'agent:b' })) },
  { name: 'no API key', transport: 'mcp', body: call({}), headers: { authorization: '' } },
  {
    name: 'body above the body limit (2 MB)',
    transport: 'mcp',
    body: call({ arguments: { ...deployArgs, notes: 'n'.repeat(2 * 1024 * 1024) } }),
  },
];

const REST: HostileInput[] = [
  { name: 'intent_scope of 8 kB', transport: 'rest', body: restCall({ intent_scope: 's'.repeat(8192) }) },
  { name: 'intent_scope holding NUL', transport: 'rest', body: restCall({ intent_scope: 'run\u0000' }) },
  {
    name: '20,000 nested arrays in arguments',
    transport: 'rest',
    body: `{"tool":"create_deployment","arguments":{"notes":${deep(20_000)}}}`,
  },
  { name: '5,000 nested objects as the body', transport: 'rest', body: deepObjects(5_000) },
  { name: 'NUL in an argument', transport: 'rest', body: restCall({ arguments: { ...deployArgs, notes: 'a\u0000b' } }) },
  { name: 'lone surrogate in an argument', transport: 'rest', body: restCall({ arguments: { ...deployArgs, notes: 'x\uDBFF' } }) },
  { name: 'arguments as an array', transport: 'rest', body: restCall({ arguments: [deployArgs] }) },
  { name: 'arguments as a string', transport: 'rest', body: restCall({ arguments: 'project=hostile' }) },
  { name: 'arguments as null', transport: 'rest', body: restCall({ arguments: null }) },
  { name: 'arguments of 300 kB', transport: 'rest', body: restCall({ arguments: { ...deployArgs, notes: 'n'.repeat(300 * 1024) } }) },
  { name: 'body that is an array', transport: 'rest', body: rest([{ tool: 'create_deployment' }]) },
  { name: 'unknown field', transport: 'rest', body: restCall({ scope: 'x' }) },
  { name: 'tool missing', transport: 'rest', body: rest({ arguments: deployArgs }) },
  { name: 'wait_ms as a string', transport: 'rest', body: restCall({ wait_ms: 'soon' }) },
  { name: 'malformed JSON', transport: 'rest', body: '{"tool": ' },
  {
    name: 'body above the body limit',
    transport: 'rest',
    body: restCall({ arguments: { ...deployArgs, notes: 'n'.repeat(2 * 1024 * 1024) } }),
  },
  { name: 'Idempotency-Key of 300 characters', transport: 'rest', body: restCall({}), headers: { 'idempotency-key': 'k'.repeat(300) } },
  { name: 'Idempotency-Key with spaces', transport: 'rest', body: restCall({}), headers: { 'idempotency-key': 'two words' } },
  {
    name: 'Onceport-Agent-Process of 4 kB',
    transport: 'rest',
    body: restCall({}),
    headers: { 'onceport-agent-process': 'p'.repeat(4096) },
  },
  {
    name: 'Onceport-Agent-Process never issued',
    transport: 'rest',
    body: restCall({}),
    headers: { 'onceport-agent-process': 'rap_madeup' },
  },
  { name: 'actor claim of another actor', transport: 'rest', body: restCall({ actor: 'agent:b' }) },
  { name: 'execution id of 8 kB', transport: 'rest', method: 'GET', path: `/v1/executions/${'e'.repeat(8192)}`, body: '' },
  { name: 'unknown tool', transport: 'rest', body: rest({ tool: 'launch_rocket', arguments: {} }) },
];

/** The runs API and the trace route (an orchestrator's and an operator's entry points), with the agent key. */
const RUNS: HostileInput[] = [
  { name: 'run: trigger of 8 kB', transport: 'rest', path: '/v1/runs', body: rest({ trigger: 't'.repeat(8192) }) },
  { name: 'run: trigger with a space', transport: 'rest', path: '/v1/runs', body: rest({ trigger: 'pull request 7' }) },
  { name: 'run: trigger with NUL', transport: 'rest', path: '/v1/runs', body: rest({ trigger: 'gh-\u0000-7' }) },
  { name: 'run: trigger that is an object', transport: 'rest', path: '/v1/runs', body: rest({ trigger: { id: 7 } }) },
  { name: 'run: trigger missing', transport: 'rest', path: '/v1/runs', body: rest({ run_id: 'run-hostile' }) },
  { name: 'run: run id of 300 characters', transport: 'rest', path: '/v1/runs', body: rest({ trigger: 'gh-7', run_id: 'r'.repeat(300) }) },
  { name: 'run: run id with a slash', transport: 'rest', path: '/v1/runs', body: rest({ trigger: 'gh-7', run_id: '../runs' }) },
  { name: 'run: unknown field', transport: 'rest', path: '/v1/runs', body: rest({ trigger: 'gh-7', actor: 'agent:b' }) },
  { name: 'run: body that is an array', transport: 'rest', path: '/v1/runs', body: rest([{ trigger: 'gh-7' }]) },
  { name: 'run: malformed JSON', transport: 'rest', path: '/v1/runs', body: '{"trigger": ' },
  { name: 'runs list: limit 0', transport: 'rest', method: 'GET', path: '/v1/runs?limit=0', body: '' },
  { name: 'runs list: limit not a number', transport: 'rest', method: 'GET', path: '/v1/runs?limit=lots', body: '' },
  { name: 'runs list: cursor naming no run', transport: 'rest', method: 'GET', path: '/v1/runs?cursor=bm8tc3VjaC1ydW4', body: '' },
  { name: 'runs list: cursor of 8 kB', transport: 'rest', method: 'GET', path: `/v1/runs?cursor=${'c'.repeat(8192)}`, body: '' },
  { name: 'runs list: unknown parameter', transport: 'rest', method: 'GET', path: '/v1/runs?order=random', body: '' },
  { name: 'run report: id of 8 kB', transport: 'rest', method: 'GET', path: `/v1/runs/${'r'.repeat(8192)}`, body: '' },
  { name: 'run report: id with NUL', transport: 'rest', method: 'GET', path: '/v1/runs/run%00x', body: '' },
  { name: 'run divergence: run never opened', transport: 'rest', method: 'GET', path: '/v1/runs/no-such-run/divergence', body: '' },
  { name: 'replay check: run never opened', transport: 'rest', method: 'GET', path: '/v1/runs/no-such-run/replay-check', body: '' },
  {
    name: 'replay: forced with a reason of 10 kB',
    transport: 'rest',
    path: '/v1/runs/no-such-run/replays',
    body: rest({ force: { reason: 'r'.repeat(10_000) } }),
  },
  { name: 'replay: force that is a string', transport: 'rest', path: '/v1/runs/no-such-run/replays', body: rest({ force: 'please' }) },
  {
    name: 'trace: with an agent key',
    transport: 'rest',
    method: 'GET',
    path: '/v1/admin/executions/exe_01JNQ7ZK3M8V2C4D6F8G0H2J4K/trace',
    body: '',
  },
];

export const HOSTILE_CORPUS: readonly HostileInput[] = [...MCP, ...REST, ...RUNS];
