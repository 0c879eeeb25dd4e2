import { EXECUTION_ID_PLACEHOLDER } from './defaults';
import { draft, type IssueDraft, type PathSegment } from './issue-path';
import { parseTemplate, type ParsedTemplate } from './template';
import type { ArgumentSpec, ArgumentsSchema } from './tool-contract.types';

export interface TemplateRules {
  readonly schema: ArgumentsSchema;
  readonly specs: Readonly<Record<string, ArgumentSpec>>;
  /** Probes run without the call's arguments in hand, only the recorded identity. */
  readonly identityOnly?: boolean;
  readonly allowExecutionId?: boolean;
}

/**
 * Every `{placeholder}` must name a declared argument that always has a value (required, or
 * with a default) and is a scalar: a target must never be built from "sometimes present" input.
 */
export function checkTemplate(template: string, at: readonly PathSegment[], rules: TemplateRules, issues: IssueDraft[]): ParsedTemplate {
  const parsed = parseTemplate(template);
  for (const error of parsed.errors) {
    issues.push(draft('invalid_template', at, error, 'placeholders of the form {argument_name}'));
  }
  const declared = Object.keys(rules.schema.properties);
  for (const name of parsed.placeholders) {
    if (name === EXECUTION_ID_PLACEHOLDER && rules.allowExecutionId) continue;
    const property = rules.schema.properties[name];
    const allowed = rules.identityOnly ? declared.filter((d) => rules.specs[d]?.role === 'identity') : declared;
    if (!property || !allowed.includes(name)) {
      const extra = rules.allowExecutionId ? ['execution_id'] : [];
      const kind = rules.identityOnly ? 'an identity argument' : 'a declared argument';
      issues.push(
        draft(
          'invalid_template',
          at,
          `placeholder {${name}}`,
          `${kind} or nothing else: one of ${[...allowed, ...extra].join(' | ') || '(no arguments declared)'}`,
        ),
      );
      continue;
    }
    if (!rules.schema.required.includes(name) && !('default' in property)) {
      issues.push(
        draft(
          'invalid_template',
          at,
          `placeholder {${name}} for an optional argument without a default`,
          `"${name}" listed in arguments.required, or a default for it`,
        ),
      );
    }
    const type = property['type'];
    if (type === 'object' || type === 'array') {
      issues.push(
        draft(
          'invalid_template',
          at,
          `placeholder {${name}} for an argument of type ${type}`,
          'placeholders only for string, number, integer or boolean arguments',
        ),
      );
    }
  }
  return parsed;
}
