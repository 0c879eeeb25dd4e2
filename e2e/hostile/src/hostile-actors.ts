import type { FixtureActor } from '@onceport/gateway-harness';

/**
 * The actors the hostile suite's gateway knows: the one place to raise per-actor limits (rate,
 * in flight) should a limit ever get in the corpus's way — it sends about 250 requests as `agent:a`.
 */
export const HOSTILE_KEYS = { a: 'key-hostile-a-6m1p', b: 'key-hostile-b-2x8c' } as const;

export const HOSTILE_ACTORS: readonly FixtureActor[] = [
  // Raised so the corpus is judged by the validator, not by the rate limit (which has its own tests).
  { id: 'agent:a', key: HOSTILE_KEYS.a, tools: '*', limits: { rate_per_second: 1000, burst: 1000 } },
  { id: 'agent:b', key: HOSTILE_KEYS.b, tools: '*' },
];

/** Credentials for the demo contracts' refs: the dispatcher resolves them for the settling call. */
export const HOSTILE_SECRETS = {
  ONCEPORT_CREDENTIAL_DEPLOY_API: 'hostile-deploy-7c1d',
  ONCEPORT_CREDENTIAL_MAIL_API: 'hostile-mail-2b9e',
  ONCEPORT_CREDENTIAL_PAYMENTS_LIVE: 'hostile-pay-5a0f',
  ONCEPORT_CREDENTIAL_CI_READONLY: 'hostile-ci-8e3a',
};
