import type { ArgumentRole, EffectClass, JsonValue } from '@onceport/contracts';

/**
 * The parsed, typed form of a tool contract (DESIGN.md §3). Every optional YAML field has been
 * resolved to its default, so consumers never have to ask "is it there?".
 */
export type ToolContract = HttpToolContract | SshToolContract;

export type Normalization = 'trim' | 'lowercase' | 'email' | 'url';
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
