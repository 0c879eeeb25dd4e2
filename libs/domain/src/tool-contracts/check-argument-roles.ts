import { ArgumentRole } from '@onceport/contracts';
import { z } from 'zod';
import { describeValue, draft, type IssueDraft, type PathSegment } from './issue-path';
import { checkDerivationSources, derivationOf, DERIVATION_KINDS } from './check-derivations';
import type { ArgumentSpec, ArgumentsSchema, JsonSchemaNode } from './tool-contract.types';
import { parseWithIssues } from './zod-issues';

const RoleEntry = z.strictObject(
  {
    role: ArgumentRole,
    normalize: z.array(z.enum(['trim', 'lowercase', 'email', 'url']), { error: 'a list such as [trim, lowercase]' }).optional(),
    sensitive: z.boolean({ error: 'true or false' }).optional(),
    derive: z.enum(DERIVATION_KINDS).optional(),
    from: z.string({ error: 'the name of a declared argument' }).optional(),
  },
  { error: 'a role (identity | derived | generated) or a mapping { role, normalize, sensitive, derive, from }' },
);

const ROLE_HELP =
  'identity for ids, targets and recipients; derived (with derive: sha256 | normalized_url) for values the gateway computes from content; generated for model-written text';

/**
 * Every argument must say how it takes part in the fingerprint (DESIGN.md §2). Guessing a role
 * would be wrong either way: "generated" by mistake merges distinct intents, "identity" by
 * mistake breaks replays of re-drafted text.
 */
export function checkArgumentRoles(
  rawRoles: Record<string, unknown> | undefined,
  schema: ArgumentsSchema,
  tool: readonly PathSegment[],
  issues: IssueDraft[],
): Record<string, ArgumentSpec> {
  const specs: Record<string, ArgumentSpec> = {};
  const declared = Object.keys(schema.properties);
  for (const name of declared) {
    const at = [...tool, 'roles', name];
    const entry = rawRoles?.[name];
    if (entry === undefined) {
      issues.push(
        draft(
          'missing_role',
          at,
          `no role for argument "${name}"`,
          `a role for every argument: add "${name}: identity" (or derived | generated) under roles — ${ROLE_HELP}`,
        ),
      );
      continue;
    }
    const parsed = parseWithIssues(RoleEntry, typeof entry === 'string' ? { role: entry } : entry, at);
    if (!parsed.ok) {
      // The short form `name: role` has no `.role` level in the YAML; report where the text is.
      issues.push(
        ...(typeof entry === 'string'
          ? [draft('invalid_field', at, describeValue(entry), 'one of identity | derived | generated')]
          : parsed.issues),
      );
      continue;
    }
    const normalize = [...new Set(parsed.value.normalize ?? [])];
    if (normalize.length > 0 && !holdsText(schema.properties[name])) {
      issues.push(
        draft(
          'invalid_field',
          [...at, 'normalize'],
          `normalize for a non-text argument`,
          'normalize only on arguments of type string (or arrays of strings)',
        ),
      );
    }
    const derivation = derivationOf(name, { ...parsed.value, normalize }, at, issues);
    specs[name] = { role: parsed.value.role, normalize, sensitive: parsed.value.sensitive ?? false, derivation };
  }
  checkDerivationSources(specs, schema, tool, issues);
  for (const name of Object.keys(rawRoles ?? {})) {
    if (!declared.includes(name)) {
      issues.push(
        draft(
          'role_for_unknown_argument',
          [...tool, 'roles', name],
          `a role for "${name}", which arguments.properties does not declare`,
          `roles only for declared arguments (${declared.join(' | ') || 'none declared'}): remove it, or declare the property`,
        ),
      );
    }
  }
  return specs;
}

function holdsText(property: JsonSchemaNode | undefined): boolean {
  const type = property?.['type'];
  if (type === undefined) return true;
  const types = Array.isArray(type) ? type : [type];
  if (types.includes('string')) return true;
  const items = property?.['items'];
  return types.includes('array') && typeof items === 'object' && items !== null && !Array.isArray(items) && items['type'] === 'string';
}
