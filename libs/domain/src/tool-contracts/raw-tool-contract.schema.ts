import { Channel, EffectClass, JsonValue } from '@onceport/contracts';
import { z } from 'zod';
import { TOOL_NAME_PATTERN } from './defaults';
import { RawMcpProbe, RawMcpTarget } from './raw-mcp.schema';
import { ByteCount, Duration, matching, text, upperCased, whenNot } from './raw-schema-parts';

// The YAML shape, snake_case, checked field by field. Every message here is the "expected" half
// of an issue; the "got" half is read from the document (see zod-issues.ts). Cross-field rules
// (roles vs properties, placeholders, effect vs method) live in the check-*.ts files.

export const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_NAME_EXPECTED = 'an HTTP header name such as Idempotency-Key';
/** A path template: absolute, no whitespace, no fragment. */
const PathTemplate = matching(/^\/[^\s#]*$/, 'a path template starting with "/", e.g. /v1/items/{item_id} (no spaces, no #fragment)');
const StatusCode = z
  .number({ error: 'an HTTP status code (100–599)' })
  .int({ error: 'an HTTP status code (100–599)' })
  .min(100, { error: 'an HTTP status code (100–599)' })
  .max(599, { error: 'an HTTP status code (100–599)' });
const StatusList = z.array(StatusCode, { error: 'a list of HTTP status codes, e.g. [200]' });
export const JSON_PATH_PATTERN = /^\$(\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\])*$/;

const RawArgumentsSchema = z.looseObject(
  {
    type: z.literal('object', { error: '"object" (tool arguments are always a JSON object)' }).optional(),
    properties: z
      .record(z.string(), z.record(z.string(), z.unknown(), { error: 'a JSON Schema (a mapping) for this argument' }), {
        error: 'a mapping of argument name → JSON Schema',
      })
      .optional(),
    required: z.array(z.string({ error: 'an argument name' }), { error: 'a list of argument names' }).optional(),
    additionalProperties: z.union([z.boolean(), z.record(z.string(), z.unknown())], { error: 'true, false or a JSON Schema' }).optional(),
  },
  { error: whenNot('a JSON Schema with type: object and properties: {...}') },
);

const RawHttpTarget = z.strictObject(
  {
    origin: z.string({ error: 'an absolute origin such as https://api.example.com' }),
    method: z.preprocess(upperCased, z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'])),
    path: PathTemplate,
    body: z.enum(['json_arguments', 'none']).optional(),
    headers: z
      .record(z.string(), z.string({ error: 'a header value as text (quote numbers)' }), {
        error: 'a mapping of header name → value',
      })
      .optional(),
    timeout: Duration.optional(),
    max_response_bytes: ByteCount.optional(),
    idempotency_header: matching(HEADER_NAME_PATTERN, HEADER_NAME_EXPECTED).optional(),
  },
  { error: whenNot('a mapping with origin, method and path') },
);

const RawSshTarget = z.strictObject(
  {
    host: text('a host name or IP address (no user@, no port)'),
    port: z
      .number({ error: 'a TCP port (1–65535)' })
      .int({ error: 'a TCP port (1–65535)' })
      .min(1, { error: 'a TCP port (1–65535)' })
      .max(65535, { error: 'a TCP port (1–65535)' })
      .optional(),
    user: matching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}$/, 'a login name such as deploy'),
    host_key: z.string({ error: 'a public host key such as "ssh-ed25519 AAAA…"' }).optional(),
    known_hosts: z.string({ error: 'one known_hosts line such as "db1.internal ssh-ed25519 AAAA…"' }).optional(),
    argv: z
      .array(z.string({ error: 'an argv element as text (quote numbers)' }), { error: 'a list of argv elements' })
      .min(1, { error: 'a non-empty argv list; the first element is the program' }),
    allow_dash_arguments: z.array(z.string({ error: 'an argument name' }), { error: 'a list of argument names' }).optional(),
    // `~/` is expanded by the wrapper on the host with the login user's $HOME. Only these
    // characters reach the remote shell, and only inside single quotes.
    marker_dir: matching(
      /^(?!(?:.*\/)?\.\.?(?:\/|$))(?:~\/|\/)[A-Za-z0-9._/-]*$/,
      'an absolute directory path, or one under the login user\'s home starting with ~/, of letters, digits and . _ - / (no "." or ".." segments)',
    ).optional(),
    timeout: Duration.optional(),
    max_output_bytes: ByteCount.optional(),
    markers: z
      .boolean({ error: 'true (the default: the durable marker protocol) or false (no marker: the tool is settled as irreversible)' })
      .optional(),
  },
  { error: whenNot('a mapping with host, user, host_key (or known_hosts) and argv') },
);

const RawHttpProbe = z.strictObject(
  {
    kind: z.literal('http').optional(),
    method: z.preprocess(upperCased, z.enum(['GET', 'HEAD'])),
    path: PathTemplate,
    applied: z.strictObject(
      {
        status: StatusList.min(1, { error: 'at least one HTTP status code that means "applied"' }),
        json_path: matching(JSON_PATH_PATTERN, 'a JSON path like $.status or $.items[0].state').optional(),
        equals: JsonValue.optional(),
      },
      { error: whenNot('a mapping with status: [...] (and optionally json_path + equals)') },
    ),
    not_applied: z.strictObject({ status: StatusList }, { error: whenNot('a mapping with status: [...]') }).optional(),
  },
  { error: whenNot('a mapping with method, path, applied and not_applied') },
);

const RawSshProbe = z.strictObject({ kind: z.literal('marker') }, { error: whenNot('a mapping: { kind: marker }') });

const commonFields = {
  name: matching(TOOL_NAME_PATTERN, 'a tool name of 1–64 letters, digits, _ or - (MCP tool name rules)'),
  title: text('a short human title').optional(),
  description: text('a description for agents: what the tool does and when to use it'),
  credential_ref: z.string({ error: 'the name of a credential, e.g. deploy-api' }).optional(),
  arguments: RawArgumentsSchema.optional(),
  roles: z.record(z.string(), z.unknown(), { error: 'a mapping of argument name → role (identity | derived | generated)' }).optional(),
  effect: EffectClass.optional(),
  correlation_window: Duration.optional(),
  ledger_retention: Duration.optional(),
  approval: z.enum(['none', 'session', 'per_use']).optional(),
  deliberate_repeats: z.enum(['allowed', 'refused'], { error: whenNot('allowed or refused') }).optional(),
};

const TOOL_EXPECTED = whenNot('a mapping describing one tool (name, description, channel, target, …)');

export const RawHttpTool = z.strictObject(
  { ...commonFields, channel: z.literal('http'), target: RawHttpTarget, probe: RawHttpProbe.optional() },
  { error: TOOL_EXPECTED },
);
export const RawSshTool = z.strictObject(
  { ...commonFields, channel: z.literal('ssh'), target: RawSshTarget, probe: RawSshProbe.optional() },
  { error: TOOL_EXPECTED },
);
/** `credential_ref` is accepted here only to be refused with a precise issue: the upstream holds it. */
export const RawMcpTool = z.strictObject(
  { ...commonFields, channel: z.literal('mcp'), target: RawMcpTarget, probe: RawMcpProbe.optional() },
  { error: TOOL_EXPECTED },
);
/** Used when `channel` is missing or wrong, to still report every other problem of the tool. */
export const RawToolOfUnknownChannel = z.strictObject(
  { ...commonFields, channel: Channel, target: z.unknown(), probe: z.unknown() },
  { error: TOOL_EXPECTED },
);

export const RawContractFile = z.strictObject(
  {
    // Each entry is checked on its own (check-mcp-upstreams.ts), like each tool, so one bad
    // upstream does not hide the problems of the others.
    upstreams: z.array(z.unknown(), { error: 'a list of MCP upstreams under upstreams:' }).optional(),
    tools: z
      .array(z.unknown(), { error: 'a list of tool contracts under tools:' })
      .min(1, { error: 'at least one tool contract under tools:' }),
  },
  { error: whenNot('a mapping with a tools: list') },
);

export type RawHttpTool = z.output<typeof RawHttpTool>;
export type RawSshTool = z.output<typeof RawSshTool>;
export type RawMcpTool = z.output<typeof RawMcpTool>;
export type RawTool = RawHttpTool | RawSshTool | RawMcpTool;
export type RawArgumentsSchema = z.output<typeof RawArgumentsSchema>;
export type RawHttpProbe = z.output<typeof RawHttpProbe>;
