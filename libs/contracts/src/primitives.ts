import { z } from 'zod';

/** What a tool does to the world, and so what may happen after an unknown outcome (DESIGN.md §3). */
export const EffectClass = z.enum(['none', 'idempotent', 'conditional', 'irreversible', 'remote_command']);
export type EffectClass = z.infer<typeof EffectClass>;

/** The effect class assumed for a tool that declares none: the worst case. */
export const UNDECLARED_EFFECT_CLASS: EffectClass = 'irreversible';

/** How an argument takes part in the intent fingerprint (DESIGN.md §2). */
export const ArgumentRole = z.enum(['identity', 'derived', 'generated']);
export type ArgumentRole = z.infer<typeof ArgumentRole>;

export const Channel = z.enum(['http', 'ssh', 'mcp']);
export type Channel = z.infer<typeof Channel>;

/** `exe_` followed by 26 Crockford base-32 characters: time-ordered, unique. */
export const ExecutionId = z.string().regex(/^exe_[0-9A-HJKMNP-TV-Z]{26}$/, 'expected an execution id like exe_01J4K8J7DX7V…');
export type ExecutionId = z.infer<typeof ExecutionId>;

/** `hmac-sha256:<key-id>:<64 hex>`; the key id lets keys rotate. */
export const Fingerprint = z.string().regex(/^hmac-sha256:[A-Za-z0-9._-]{1,64}:[0-9a-f]{64}$/, 'expected hmac-sha256:<key-id>:<hex>');
export type Fingerprint = z.infer<typeof Fingerprint>;

export const IsoTimestamp = z.iso.datetime({ offset: true });

/** A JSON value as it may appear in arguments and records. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export const JsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(z.string(), JsonValue)]),
);

/**
 * The canonical operation record (DESIGN.md §2): what the fingerprint is computed over, and what an
 * approver or investigator is shown. Built from the tool contract, never from raw request bytes;
 * holds identity and derived arguments only, and never a secret.
 */
export const CanonicalOperationRecord = z.object({
  actor: z.string().min(1),
  tool: z.string().min(1),
  channel: Channel,
  /** `https://host[:port]` for HTTP, `ssh://user@host:port` for SSH. */
  target: z.string().min(1),
  credential_ref: z.string().nullable(),
  /** HTTP method and path template, or `exec` for SSH. */
  method: z.string().min(1),
  arguments: z.record(z.string(), JsonValue),
  intent_scope: z.string().min(1),
});
export type CanonicalOperationRecord = z.infer<typeof CanonicalOperationRecord>;

/**
 * The content type of a stored MCP upstream result: `{ content, structuredContent?, isError }` as the
 * upstream sent it. The dispatcher stores it; intake hands the content blocks back to the agent.
 */
export const MCP_RESULT_CONTENT_TYPE = 'application/vnd.onceport.mcp-result+json';
