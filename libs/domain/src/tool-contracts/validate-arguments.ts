import type { JsonValue } from '@onceport/contracts';
import type { ErrorObject } from 'ajv';
import { validatorFor } from './arguments-ajv';
import { deriveArguments } from './derived-arguments';
import { normalizeArgument } from './normalize-argument';
import type { ToolContract } from './tool-contract.types';

/** One reason a call's arguments were refused; becomes MCP error -32602 `data` later. */
export interface ArgumentIssue {
  /** JSON path of the failing value, e.g. `$.recipient` or `$.items[2].sku`. */
  readonly path: string;
  /** The JSON Schema keyword that failed (`required`, `type`, `format`, …). */
  readonly keyword: string;
  readonly message: string;
}

export type ArgumentsValidation =
  | {
      readonly ok: true;
      readonly value: Record<string, JsonValue>;
      /** What the gateway computed for each `derived` argument (see deriveArguments); the record holds these. */
      readonly derived: Readonly<Record<string, string>>;
    }
  | { readonly ok: false; readonly issues: readonly ArgumentIssue[] };

/**
 * Applies the contract's declared normalisations, checks the arguments against its schema, then
 * derives the `derived` arguments (a source that cannot be derived, or a disagreeing claim, is refused).
 * On success `value` is a normalised copy with declared defaults filled in (the caller's object
 * is never modified): what is dispatched and what is fingerprinted are the same values.
 *
 * Normalising first is deliberate: `" Ana@Example.COM "` is a declared equivalent of
 * `ana@example.com`, so it must not fail `format: email` only because of its spelling.
 */
export function validateArguments(contract: ToolContract, args: unknown): ArgumentsValidation {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return { ok: false, issues: [{ path: '$', keyword: 'type', message: '$: arguments must be a JSON object' }] };
  }
  const copy = structuredClone(args) as Record<string, JsonValue>;
  for (const [name, spec] of Object.entries(contract.argumentSpecs)) {
    const value = copy[name];
    if (value !== undefined && spec.normalize.length > 0) copy[name] = normalizeArgument(value, spec.normalize);
  }
  const validate = validatorFor(contract.argumentsSchema);
  if (!validate(copy)) return { ok: false, issues: (validate.errors ?? []).map(toArgumentIssue) };
  const derived = deriveArguments(contract, copy);
  return derived.issues.length > 0 ? { ok: false, issues: derived.issues } : { ok: true, value: copy, derived: derived.values };
}

function toArgumentIssue(error: ErrorObject): ArgumentIssue {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (params.missingProperty !== undefined) segments.push(params.missingProperty);
  if (params.additionalProperty !== undefined) segments.push(params.additionalProperty);
  const path = toJsonPath(segments);
  const message =
    error.keyword === 'required'
      ? 'is required'
      : error.keyword === 'additionalProperties'
        ? 'is not a declared argument'
        : (error.message ?? 'is invalid');
  return { path, keyword: error.keyword, message: `${path}: ${message}` };
}

function toJsonPath(segments: readonly string[]): string {
  return segments.reduce(
    (acc, s) =>
      /^[0-9]+$/.test(s) ? `${acc}[${s}]` : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(s) ? `${acc}.${s}` : `${acc}[${JSON.stringify(s)}]`,
    '$',
  );
}
