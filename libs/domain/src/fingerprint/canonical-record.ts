import { type CanonicalOperationRecord, type JsonValue, canonicalJson } from '@onceport/contracts';
import { validateArguments, type ArgumentSpec, type ToolContract } from '../tool-contracts';
import { FingerprintError } from './fingerprint-error';

/**
 * Turns a sensitive argument's canonical JSON into a keyed digest string. Keyed, because a plain
 * hash of a low-entropy value (a card token's tail, an e-mail) is a guessing oracle.
 */
export type HmacForSensitive = (canonicalValue: string) => string;

export interface CanonicalRecordInput {
  readonly contract: ToolContract;
  /** The authenticated caller, never a claim from the request body. */
  readonly actor: string;
  readonly intentScope: string;
  /** The call's arguments as parsed from JSON. */
  readonly arguments: unknown;
  /** Required even when unused, so a sensitive value can never fall through in plain text. */
  readonly hmacForSensitive: HmacForSensitive;
}

/** Arguments allowed by `additionalProperties` have no declared role; the safe reading is identity. */
const UNDECLARED_ARGUMENT: ArgumentSpec = { role: 'identity', normalize: [], sensitive: false, derivation: null };

/**
 * Builds the canonical operation record (DESIGN.md §2) from the contract, never from request
 * bytes: identity and derived arguments only, declared defaults filled in, normalisations applied,
 * derived arguments as the gateway computed them (a digest, never the file), generated arguments
 * dropped, sensitive ones replaced by `{ "$hmac": "<digest>" }`, keys sorted.
 *
 * @example buildCanonicalRecord({ contract, actor: 'agent:billing', intentScope: 'run_42', arguments: args, hmacForSensitive: sensitiveHmacWith(keyring) })
 */
export function buildCanonicalRecord(input: CanonicalRecordInput): CanonicalOperationRecord {
  const { contract } = input;
  const problems = [
    ...(isNonEmpty(input.actor) ? [] : ['actor: got an empty value; expected the authenticated caller id']),
    ...(isNonEmpty(input.intentScope) ? [] : ['intentScope: got an empty value; expected the run or session the call belongs to']),
  ];
  if (problems.length > 0) throw new FingerprintError('INVALID_RECORD_INPUT', problems);

  const validated = validateArguments(contract, input.arguments);
  if (!validated.ok) {
    throw new FingerprintError(
      'INVALID_ARGUMENTS',
      validated.issues.map((i) => i.message),
      validated.issues,
    );
  }

  const recorded: Record<string, JsonValue> = {};
  // A derived argument is recorded as the gateway computed it, whether or not the agent sent one.
  const names = new Set([...Object.keys(validated.value), ...Object.keys(validated.derived)]);
  for (const name of [...names].sort()) {
    const spec = contract.argumentSpecs[name] ?? UNDECLARED_ARGUMENT;
    if (spec.role === 'generated') continue;
    if (spec.derivation && validated.derived[name] === undefined) continue;
    const canonical = canonicalJson(spec.derivation ? validated.derived[name] : validated.value[name]);
    recorded[name] = spec.sensitive ? { $hmac: input.hmacForSensitive(canonical) } : (JSON.parse(canonical) as JsonValue);
  }

  const { target, method } = recordTarget(contract);
  return {
    actor: input.actor,
    arguments: recorded,
    channel: contract.channel,
    credential_ref: contract.credentialRef,
    intent_scope: input.intentScope,
    method,
    target,
    tool: contract.name,
  };
}

/**
 * HTTP: origin + `METHOD /path/{template}`; SSH: `ssh://user@host:port` + `exec`; MCP: the upstream
 * (its URL, or `mcp+stdio://<name>` for a local server) + `tools/call <upstream tool>`.
 */
export function recordTarget(contract: ToolContract): { target: string; method: string } {
  if (contract.channel === 'http') {
    return { target: contract.target.origin, method: `${contract.target.method} ${contract.target.path}` };
  }
  if (contract.channel === 'mcp') {
    const { upstream, tool } = contract.target;
    return { target: upstream.transport === 'http' ? upstream.url : `mcp+stdio://${upstream.name}`, method: `tools/call ${tool}` };
  }
  const { user, host, port } = contract.target;
  return { target: `ssh://${user}@${host.includes(':') ? `[${host}]` : host}:${port}`, method: 'exec' };
}

function isNonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}
