import type { ArgumentRole, EffectClass, JsonValue } from '@onceport/contracts';

/**
 * The parsed, typed form of a tool contract (DESIGN.md §3). Every optional YAML field has been
 * resolved to its default, so consumers never have to ask "is it there?".
 */
export type ToolContract = HttpToolContract | SshToolContract | McpToolContract;

export type Normalization = 'trim' | 'lowercase' | 'email' | 'url';
/** What the gateway computes for a `derived` argument (closed set; see derive-argument.ts). */
export type DerivationKind = 'sha256' | 'normalized_url';
export type ApprovalPolicy = 'none' | 'session' | 'per_use';
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One JSON Schema node, as written by the operator (draft 2020-12). */
export interface JsonSchemaNode {
  [keyword: string]: JsonValue;
}

/** The arguments schema with `type`, `properties`, `required` and `additionalProperties` filled in. */
export interface ArgumentsSchema {
  [keyword: string]: JsonValue;
  type: 'object';
  properties: Record<string, JsonSchemaNode>;
  required: string[];
  additionalProperties: boolean | JsonSchemaNode;
}

/** How one argument takes part in the canonical record. */
export interface ArgumentSpec {
  readonly role: ArgumentRole;
  readonly normalize: readonly Normalization[];
  /** Never stored in plain text: enters the record as a keyed HMAC of its value. */
  readonly sensitive: boolean;
  /**
   * Set exactly for role `derived`: the record holds what the gateway computes from the argument
   * `from` (the argument itself unless the YAML names another), never the agent's claim.
   */
  readonly derivation: ArgumentDerivation | null;
}

export interface ArgumentDerivation {
  readonly kind: DerivationKind;
  /** A declared argument of type string; the argument's own name when the YAML has no `from`. */
  readonly from: string;
}

interface ToolContractCommon {
  readonly name: string;
  /** Defaults to `name`. */
  readonly title: string;
  readonly description: string;
  /** The name of a credential held by the dispatcher; never the secret itself. */
  readonly credentialRef: string | null;
  readonly argumentsSchema: ArgumentsSchema;
  /** One entry per property of `argumentsSchema`. */
  readonly argumentSpecs: Readonly<Record<string, ArgumentSpec>>;
  readonly effect: EffectClass;
  /** False when the YAML said nothing and the worst case was assumed. */
  readonly effectDeclared: boolean;
  readonly correlationWindowMs: number;
  /** Null: a completed, delivered execution never matches again (no ledger hits). */
  readonly ledgerRetentionMs: number | null;
  readonly approval: ApprovalPolicy;
  /**
   * Whether an agent may say it means a second effect of an intent that would match (DESIGN.md §7):
   * `refused` for tools where a repeat is never wanted (a payment); default `allowed`.
   */
  readonly deliberateRepeats: 'allowed' | 'refused';
  /** Where the contract was declared, for operators and duplicate reports. */
  readonly source: { readonly file: string; readonly index: number; readonly line: number | null };
}

export interface HttpToolContract extends ToolContractCommon {
  readonly channel: 'http';
  readonly target: HttpTarget;
  readonly probe: HttpProbe | null;
}

export interface SshToolContract extends ToolContractCommon {
  readonly channel: 'ssh';
  readonly target: SshTarget;
  readonly probe: SshProbe | null;
}

/**
 * A tool of a third-party MCP server (an "upstream"). Its hints (`readOnlyHint`, …) are never
 * trusted: the effect class is the contract's, and an undeclared one is the worst case.
 */
export interface McpToolContract extends ToolContractCommon {
  readonly channel: 'mcp';
  readonly target: McpTarget;
  /**
   * `mcp_task`: the dispatcher asks the upstream for a task (task-augmented `tools/call`), and an
   * unknown outcome whose task is known is settled by polling the upstream's `tasks/get`. Null: an
   * unknown outcome settles by the effect class table alone.
   */
  readonly probe: McpProbe | null;
}

export interface McpTarget {
  /** Declared once per contract file (`upstreams:`), shared by every tool that names it. */
  readonly upstream: McpUpstream;
  /** The tool's name on the upstream (defaults to the contract's name). */
  readonly tool: string;
  readonly timeoutMs: number;
  /** The upstream's result (content blocks, structured content) is cut above this, like an HTTP body. */
  readonly maxResultBytes: number;
  /**
   * A `_meta` key the upstream documents as its idempotency key: it gets the execution id too
   * (the id always travels as `_meta["onceport/execution_id"]`).
   */
  readonly idempotencyMetaKey: string | null;
}

/** Which MCP revision the dispatcher speaks to an upstream: `auto` probes `server/discover`, then falls back to `initialize`. */
export type McpProtocolChoice = 'auto' | '2026-07-28' | '2025-11-25';

export type McpUpstream = McpStdioUpstream | McpHttpUpstream;

interface McpUpstreamCommon {
  readonly name: string;
  readonly protocol: McpProtocolChoice;
  /** How long connecting (spawn + discover/initialize) may take before the send fails before sending. */
  readonly connectTimeoutMs: number;
  /** The upstream's credential; the dispatcher resolves it, as for HTTP targets. */
  readonly credentialRef: string | null;
}

/** A local MCP server the dispatcher runs as a child process (restarted when it dies). */
export interface McpStdioUpstream extends McpUpstreamCommon {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  /** Plain values only; a secret comes through `credentialRef` as `credentialEnv`. */
  readonly env: Readonly<Record<string, string>>;
  /** The environment variable that receives the resolved credential, when there is one. */
  readonly credentialEnv: string | null;
  readonly cwd: string | null;
}

/** A remote MCP server over Streamable HTTP. */
export interface McpHttpUpstream extends McpUpstreamCommon {
  readonly transport: 'http';
  /** WHATWG-normalised absolute URL of the MCP endpoint. */
  readonly url: string;
  readonly auth: McpUpstreamAuth;
}

/**
 * `bearer`: the credential is the token. `oauth_client_credentials`: the credential is the client
 * secret; the token endpoint is discovered from the upstream's protected resource metadata (MCP
 * authorization), and the secret is sent only to `issuer` (YAML `issuer:`, absolute https; http on loopback).
 */
export type McpUpstreamAuth =
  | { readonly kind: 'none' }
  | { readonly kind: 'bearer' }
  | { readonly kind: 'oauth_client_credentials'; readonly issuer: string; readonly clientId: string; readonly scope: string | null };

export interface McpProbe {
  readonly kind: 'mcp_task';
}

export interface HttpTarget {
  /** WHATWG-normalised origin: scheme, lower-cased host, port only when not the default. */
  readonly origin: string;
  readonly method: HttpMethod;
  /** Path template such as `/v1/projects/{project}/deployments`; see `parseTemplate`. */
  readonly path: string;
  /** `json_arguments`: the arguments not used in the path, as a JSON body. */
  readonly body: 'json_arguments' | 'none';
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  /** The provider's header that receives the execution id, e.g. `Idempotency-Key`. */
  readonly idempotencyHeader: string | null;
}

export interface SshHostKey {
  /** e.g. `ssh-ed25519`. */
  readonly algorithm: string;
  /** The base64 public key blob, as in `authorized_keys` / `known_hosts`. */
  readonly publicKey: string;
}

export interface SshTarget {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  /** Pinned: whether given as `host_key` or as a `known_hosts` entry. */
  readonly hostKey: SshHostKey;
  /** argv template; every element is quoted by the gateway, never joined into a shell string. */
  readonly argv: readonly string[];
  /** Arguments whose value may start with `-` (otherwise refused, against option injection). */
  readonly allowDashArguments: readonly string[];
  readonly markerDir: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /**
   * False for a host where the marker wrapper cannot run: the command is sent bare (still as a
   * quoted argv), there is no probe, and an unknown outcome goes to a human like an irreversible call.
   */
  readonly markers: boolean;
}

export interface HttpProbe {
  readonly kind: 'http';
  readonly method: 'GET' | 'HEAD';
  /** May use `{execution_id}` and identity arguments. */
  readonly path: string;
  readonly applied: {
    readonly status: readonly number[];
    /** When set, the response body must also hold `equals` at `jsonPath`. */
    readonly match: { readonly jsonPath: string; readonly equals: JsonValue } | null;
  };
  readonly notApplied: { readonly status: readonly number[] };
}

export interface SshProbe {
  readonly kind: 'marker';
}
