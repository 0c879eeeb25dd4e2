import type { ArgumentRole } from '@onceport/contracts';
import { draft, type IssueDraft, type PathSegment } from './issue-path';
import type { ArgumentDerivation, ArgumentSpec, ArgumentsSchema, DerivationKind, Normalization } from './tool-contract.types';

export const DERIVATION_KINDS = ['sha256', 'normalized_url'] as const satisfies readonly DerivationKind[];

const DERIVE_HELP =
  'derive: sha256 (the SHA-256 of an argument’s bytes, e.g. an uploaded file) or derive: normalized_url, with from: <argument> when it is computed from another argument';

export interface RoleEntryFields {
  readonly role: ArgumentRole;
  readonly normalize: readonly Normalization[];
  readonly derive?: DerivationKind | undefined;
  readonly from?: string | undefined;
}

/**
 * The derivation of one role entry, or null. A `derived` argument is computed by the gateway
 * (DESIGN.md §2, issue 16): a bare `derived` would record whatever the agent claims, so it is
 * refused rather than read as identity in disguise.
 */
export function derivationOf(
  name: string,
  entry: RoleEntryFields,
  at: readonly PathSegment[],
  issues: IssueDraft[],
): ArgumentDerivation | null {
  if (entry.role !== 'derived') {
    if (entry.derive !== undefined) {
      issues.push(draft('invalid_field', [...at, 'derive'], `derive with role ${entry.role}`, 'role: derived beside derive, or no derive'));
    } else if (entry.from !== undefined) {
      issues.push(
        draft('invalid_field', [...at, 'from'], `from with role ${entry.role}`, 'from only on a derived argument, beside derive'),
      );
    }
    return null;
  }
  if (entry.derive === undefined) {
    issues.push(
      draft(
        'invalid_field',
        at,
        'role derived without a derivation (the record would hold the agent’s claim)',
        `${DERIVE_HELP}; or role identity if the agent’s own value is the identity`,
      ),
    );
    return null;
  }
  if (entry.normalize.length > 0) {
    issues.push(
      draft(
        'invalid_field',
        [...at, 'normalize'],
        'normalize on a derived argument',
        'no normalize beside derive: the derivation is the canonical form',
      ),
    );
  }
  return { kind: entry.derive, from: entry.from ?? name };
}

/**
 * Rules across arguments: a derivation reads a declared text argument (a file as base64 with
 * `contentEncoding: base64`, or as UTF-8 text), and a file whose digest stands for it is not also
 * recorded whole (a record is bounded; a file argument is hashed, never copied into it).
 */
export function checkDerivationSources(
  specs: Readonly<Record<string, ArgumentSpec>>,
  schema: ArgumentsSchema,
  tool: readonly PathSegment[],
  issues: IssueDraft[],
): void {
  const declared = Object.keys(schema.properties);
  const encodingChecked = new Set<string>();
  for (const [name, spec] of Object.entries(specs)) {
    if (!spec.derivation) continue;
    const { kind, from } = spec.derivation;
    const at = [...tool, 'roles', name, from === name ? 'derive' : 'from'];
    const source = schema.properties[from];
    if (!source) {
      issues.push(
        draft(
          'invalid_field',
          at,
          `from: "${from}", which arguments.properties does not declare`,
          `one of the declared arguments (${declared.join(' | ')})`,
        ),
      );
      continue;
    }
    for (const argument of new Set([from, name])) {
      if (schema.properties[argument]?.['type'] !== 'string') {
        issues.push(
          draft(
            'invalid_field',
            at,
            `derive ${kind} with "${argument}" not declared type: string`,
            `type: string on "${argument}" (a derivation reads and yields text)`,
          ),
        );
      }
    }
    const encoding = source['contentEncoding'];
    if (kind === 'sha256' && encoding !== undefined && encoding !== 'base64' && !encodingChecked.has(from)) {
      encodingChecked.add(from);
      issues.push(
        draft(
          'invalid_field',
          [...tool, 'arguments', 'properties', from, 'contentEncoding'],
          `contentEncoding ${JSON.stringify(encoding)} for the source of a sha256`,
          'contentEncoding: base64 (the digest is over the decoded bytes), or none (over the UTF-8 bytes of the text)',
        ),
      );
    }
    if (kind === 'sha256' && from !== name && specs[from]?.role === 'identity') {
      issues.push(
        draft(
          'invalid_field',
          [...tool, 'roles', from],
          `role identity for "${from}", whose SHA-256 "${name}" records (its bytes would enter the record whole)`,
          `{ role: derived, derive: sha256 } or generated for "${from}": the digest in "${name}" already stands for it`,
        ),
      );
    }
  }
}
