import type { JsonValue } from '@onceport/contracts';
import type { HttpProbe } from '@onceport/domain';
import type { HttpOutcome } from './http-outcome';
import { jsonEquals, readJsonPath } from './json-path';

export type ProbeVerdict = 'applied' | 'not_applied' | 'cant_tell';

export interface ProbeResult {
  readonly verdict: ProbeVerdict;
  /** Why, in words an operator reviewing `needs_review` can act on. */
  readonly detail: string;
  /** The probe's HTTP status when the target answered. */
  readonly status: number | null;
}

/**
 * Reads a probe answer strictly by the contract: a status listed under `applied` (and, when
 * declared, the expected value at the JSON path) means applied; a status under `not_applied`
 * means not applied; anything else — other statuses, transport trouble, a body that does not
 * match — is "can't tell", because a wrong "not applied" would trigger a duplicate effect.
 */
export function judgeProbe(probe: HttpProbe, outcome: HttpOutcome): ProbeResult {
  if (outcome.kind !== 'observed') {
    return { verdict: 'cant_tell', detail: `the probe got no answer (${outcome.code}): ${outcome.reason}`, status: null };
  }
  const { status } = outcome;
  if (probe.notApplied.status.includes(status)) {
    return { verdict: 'not_applied', detail: `probe answered ${status}, listed as not applied`, status };
  }
  if (!probe.applied.status.includes(status)) {
    return { verdict: 'cant_tell', detail: `probe answered ${status}, listed as neither applied nor not applied`, status };
  }
  const match = probe.applied.match;
  if (match === null) return { verdict: 'applied', detail: `probe answered ${status}, listed as applied`, status };
  if (outcome.truncated) {
    return {
      verdict: 'cant_tell',
      detail: `probe answered ${status} but the body was cut at the size cap, so ${match.jsonPath} cannot be read`,
      status,
    };
  }
  const document = parseJson(outcome.body);
  if (document === undefined) return { verdict: 'cant_tell', detail: `probe answered ${status} with a body that is not JSON`, status };
  const found = readJsonPath(document, match.jsonPath);
  if (found !== undefined && jsonEquals(found, match.equals)) {
    return { verdict: 'applied', detail: `probe answered ${status} and ${match.jsonPath} is ${brief(match.equals)}`, status };
  }
  const seen = found === undefined ? 'missing' : brief(found);
  return {
    verdict: 'cant_tell',
    detail: `probe answered ${status} but ${match.jsonPath} is ${seen}, expected ${brief(match.equals)}`,
    status,
  };
}

function parseJson(body: Buffer): JsonValue | undefined {
  try {
    return JSON.parse(body.toString('utf8')) as JsonValue;
  } catch {
    return undefined; // not JSON: reported as "can't tell" by the caller
  }
}

function brief(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
