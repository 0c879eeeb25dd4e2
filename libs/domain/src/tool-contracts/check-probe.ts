import type { JsonValue } from '@onceport/contracts';
import { draft, type IssueDraft, type PathSegment } from './issue-path';
import { checkTemplate, type TemplateRules } from './check-template';
import type { RawHttpProbe } from './raw-tool-contract.schema';
import type { HttpProbe } from './tool-contract.types';

/**
 * A probe says how an unknown outcome is settled. Status codes listed under neither `applied`
 * nor `not_applied` mean "can't tell", so overlaps are refused rather than resolved by order.
 */
export function checkHttpProbe(raw: RawHttpProbe, at: readonly PathSegment[], rules: TemplateRules, issues: IssueDraft[]): HttpProbe {
  checkTemplate(raw.path, [...at, 'path'], { ...rules, identityOnly: true, allowExecutionId: true }, issues);
  const notApplied = raw.not_applied?.status ?? [];
  const overlap = raw.applied.status.filter((s) => notApplied.includes(s));
  if (overlap.length > 0) {
    issues.push(
      draft(
        'invalid_field',
        [...at, 'not_applied', 'status'],
        `status ${overlap.join(', ')} in both applied and not_applied`,
        'each status code in at most one of the two lists',
      ),
    );
  }
  const hasEquals = Object.hasOwn(raw.applied, 'equals');
  if ((raw.applied.json_path === undefined) === hasEquals) {
    const missing = hasEquals ? 'json_path' : 'equals';
    issues.push(
      draft('invalid_field', [...at, 'applied', missing], 'nothing (the field is missing)', 'json_path and equals together, or neither'),
    );
  }
  if (raw.method === 'HEAD' && raw.applied.json_path !== undefined) {
    issues.push(
      draft(
        'invalid_field',
        [...at, 'applied', 'json_path'],
        'a json_path with method HEAD',
        'method GET when the probe reads the response body',
      ),
    );
  }
  const match =
    raw.applied.json_path !== undefined && hasEquals
      ? { jsonPath: raw.applied.json_path, equals: (raw.applied.equals ?? null) as JsonValue }
      : null;
  return {
    kind: 'http',
    method: raw.method,
    path: raw.path,
    applied: { status: raw.applied.status, match },
    notApplied: { status: notApplied },
  };
}
