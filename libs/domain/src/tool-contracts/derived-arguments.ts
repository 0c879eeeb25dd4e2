import type { JsonValue } from '@onceport/contracts';
import { claimAgrees, deriveArgument } from './derive-argument';
import type { ToolContract } from './tool-contract.types';
import type { ArgumentIssue } from './validate-arguments';

export interface DerivedArguments {
  /** Argument name → the value the gateway computed; what the canonical record holds for it. */
  readonly values: Readonly<Record<string, string>>;
  /** A source that cannot be derived (not base64, not a URL), or an agent's value that disagrees. */
  readonly issues: readonly ArgumentIssue[];
}

const WHAT: Readonly<Record<'sha256' | 'normalized_url', (from: string) => string>> = {
  sha256: (from) => `the SHA-256 of ${from}'s bytes`,
  normalized_url: (from) => `${from} as a normalised URL`,
};

/**
 * Computes every `derived` argument of a call from its source argument (DESIGN.md §2: "not one the
 * agent claims"). An agent may still send its own value for an argument derived from another one
 * (a provider may want the digest beside the file); it is passed to the target as sent, but refused
 * when it disagrees with the gateway's — a record that silently differs from what the target got
 * would be worse than an error the agent can fix. Expects arguments that passed the schema.
 */
export function deriveArguments(contract: ToolContract, args: Readonly<Record<string, JsonValue>>): DerivedArguments {
  const values: Record<string, string> = {};
  const issues = new Map<string, ArgumentIssue>();
  const refuse = (name: string, message: string): void => {
    const path = jsonPath(name);
    if (!issues.has(path)) issues.set(path, { path, keyword: 'derived', message: `${path}: ${message}` });
  };
  for (const [name, spec] of Object.entries(contract.argumentSpecs)) {
    if (!spec.derivation) continue;
    const { kind, from } = spec.derivation;
    const source = args[from];
    const claim = from === name ? undefined : args[name];
    if (typeof source !== 'string') {
      // Absent (optional, no default): nothing to derive, and so nothing a claim could be checked against.
      if (claim !== undefined) refuse(name, `cannot be checked without ${from}: send ${from} too, or leave ${name} out`);
      continue;
    }
    const derived = deriveArgument(kind, source, contract.argumentsSchema.properties[from]);
    if (!derived.ok) {
      refuse(from, derived.problem);
      continue;
    }
    if (claim !== undefined && !(typeof claim === 'string' && claimAgrees(kind, claim, derived.value))) {
      refuse(name, `is not ${WHAT[kind](from)} (the gateway computes it): send that value, or leave ${name} out`);
      continue;
    }
    values[name] = derived.value;
  }
  return { values, issues: [...issues.values()] };
}

function jsonPath(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `$.${name}` : `$[${JSON.stringify(name)}]`;
}
