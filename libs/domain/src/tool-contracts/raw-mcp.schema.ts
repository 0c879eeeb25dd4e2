import { z } from 'zod';
import { MCP_TOOL_NAME_PATTERN, UPSTREAM_NAME_PATTERN } from './defaults';
import { ByteCount, Duration, matching, text, whenNot } from './raw-schema-parts';

// The YAML shape of MCP upstreams (`upstreams:`, once per file) and of a `channel: mcp` target.
// Rules across fields (credential and auth, URLs, env names, the upstream a tool names) live in
// check-mcp-upstreams.ts and check-mcp-target.ts.

const MAX_TEXT = 4096;
const MAX_URL = 2048;
const bounded = (expected: string, max = MAX_TEXT) =>
  z.string({ error: expected }).max(max, { error: `${expected} (at most ${max} characters)` });

export const UPSTREAM_NAME_EXPECTED =
  'an upstream name of 1–64 lower-case letters, digits, _ or -, starting with a letter or digit, e.g. files';
const UpstreamName = matching(UPSTREAM_NAME_PATTERN, UPSTREAM_NAME_EXPECTED);

const common = {
  name: UpstreamName,
  credential_ref: z.string({ error: 'the name of a credential, e.g. files-token' }).optional(),
  protocol: z.enum(['auto', '2026-07-28', '2025-11-25']).optional(),
  connect_timeout: Duration.optional(),
};

const stdioFields = {
  command: bounded('a program name (e.g. node, npx) or an absolute path, without arguments'),
  args: z
    .array(bounded('an argument as text (quote numbers)'), { error: 'a list of arguments' })
    .max(64, { error: 'at most 64 arguments' })
    .optional(),
  env: z.record(z.string(), bounded('a value as text (quote numbers)'), { error: 'a mapping of variable name → value' }).optional(),
  credential_env: z.string({ error: 'an environment variable name, e.g. FILES_TOKEN' }).optional(),
  cwd: bounded('an absolute directory path').optional(),
};

const httpFields = {
  url: bounded('an absolute https URL of the MCP endpoint, e.g. https://mcp.example.com/mcp', MAX_URL),
  auth: z.enum(['none', 'bearer', 'oauth_client_credentials']).optional(),
  issuer: bounded("the authorization server's issuer identifier, e.g. https://auth.example.com", MAX_URL).optional(),
  client_id: text('the OAuth client id').max(256, { error: 'an OAuth client id of at most 256 characters' }).optional(),
  scope: bounded('space-separated OAuth scopes, e.g. "files:read files:write"', 1024).optional(),
};

const UPSTREAM_EXPECTED = whenNot('a mapping describing one MCP server (name, transport: stdio | http, …)');

export const RawStdioUpstream = z.strictObject({ ...common, transport: z.literal('stdio'), ...stdioFields }, { error: UPSTREAM_EXPECTED });
export const RawHttpUpstream = z.strictObject({ ...common, transport: z.literal('http'), ...httpFields }, { error: UPSTREAM_EXPECTED });

const anyOf = (fields: Record<string, unknown>) => Object.fromEntries(Object.keys(fields).map((key) => [key, z.unknown()]));
/** Used when `transport` is missing or wrong, to still report every other problem of the upstream. */
export const RawUpstreamOfUnknownTransport = z.strictObject(
  { ...anyOf(stdioFields), ...anyOf(httpFields), ...common, transport: z.enum(['stdio', 'http']) },
  { error: UPSTREAM_EXPECTED },
);

export const RawMcpTarget = z.strictObject(
  {
    upstream: UpstreamName,
    tool: matching(MCP_TOOL_NAME_PATTERN, "the upstream's tool name: 1–128 letters, digits, _, - or . (MCP tool name rules)").optional(),
    timeout: Duration.optional(),
    max_result_bytes: ByteCount.optional(),
    idempotency_meta_key: bounded('a _meta key the upstream documents, e.g. com.example/idempotency_key', 256).optional(),
  },
  { error: whenNot("a mapping with upstream (the name of one of this file's upstreams) and optionally tool") },
);

export const RawMcpProbe = z.strictObject({ kind: z.literal('mcp_task') }, { error: whenNot('a mapping: { kind: mcp_task }') });

export type RawStdioUpstream = z.output<typeof RawStdioUpstream>;
export type RawHttpUpstream = z.output<typeof RawHttpUpstream>;
export type RawMcpTarget = z.output<typeof RawMcpTarget>;
