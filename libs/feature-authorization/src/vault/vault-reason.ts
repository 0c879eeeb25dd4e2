import { Problem } from '@onceport/service-kit';

const MAX_REASON = 1000;

/** The `reason` of a lock or unlock body: required, because it is what agents and auditors are shown. */
export function reasonOf(body: unknown): string {
  const raw = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)['reason'] : undefined;
  const reason = typeof raw === 'string' ? raw.trim() : '';
  if (reason === '') {
    throw new Problem(
      400,
      'reason_required',
      'Reason required',
      'Send a JSON body with a non-empty "reason", e.g. {"reason": "deploy key leaked"}: it is recorded with the change.',
    );
  }
  if (reason.length > MAX_REASON)
    throw new Problem(400, 'reason_too_long', 'Reason too long', `The reason may be at most ${MAX_REASON} characters.`);
  return reason;
}
