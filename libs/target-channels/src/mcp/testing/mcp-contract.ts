import type { McpHttpUpstream, McpStdioUpstream, McpToolContract, McpUpstream } from '@onceport/domain';

/** Where the npm MCP servers the tests run live (devDependencies). */
export const FILESYSTEM_SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
export const EVERYTHING_SERVER = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

export function stdioUpstream(name: string, args: readonly string[], overrides: Partial<McpStdioUpstream> = {}): McpStdioUpstream {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    args,
    env: {},
    credentialEnv: null,
    cwd: null,
    protocol: 'auto',
    connectTimeoutMs: 20_000,
    credentialRef: null,
    ...overrides,
  };
}

export function httpUpstream(name: string, url: string, overrides: Partial<McpHttpUpstream> = {}): McpHttpUpstream {
  return {
    name,
    transport: 'http',
    url,
    auth: { kind: 'none' },
    protocol: 'auto',
    connectTimeoutMs: 10_000,
    credentialRef: null,
    ...overrides,
  };
}

/** A contract for one upstream tool, as the contract parser would build it (schema open: the upstream validates). */
export function mcpContract(upstream: McpUpstream, tool: string, overrides: Partial<McpToolContract['target']> = {}): McpToolContract {
  return {
    name: tool.replace(/[^A-Za-z0-9_-]/g, '_'),
    title: tool,
    description: `${tool} of ${upstream.name}`,
    credentialRef: upstream.credentialRef,
    argumentsSchema: { type: 'object', properties: {}, required: [], additionalProperties: true },
    argumentSpecs: {},
    effect: 'irreversible',
    effectDeclared: false,
    correlationWindowMs: 3_600_000,
    ledgerRetentionMs: null,
    approval: 'none',
    deliberateRepeats: 'allowed',
    source: { file: 'test', index: 0, line: null },
    channel: 'mcp',
    target: { upstream, tool, timeoutMs: 20_000, maxResultBytes: 1_048_576, idempotencyMetaKey: null, ...overrides },
    probe: null,
  };
}
