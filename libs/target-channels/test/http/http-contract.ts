import type { HttpProbe, HttpTarget, HttpToolContract } from '@onceport/domain';

/** A fully resolved HTTP contract as the parser would produce it, for the channel's tests. */
export function httpContract(
  origin: string,
  target: Partial<HttpTarget> = {},
  extra: { probe?: HttpProbe | null; credentialRef?: string | null } = {},
): HttpToolContract {
  return {
    name: 'create_deployment',
    title: 'Create a deployment',
    description: 'test contract',
    channel: 'http',
    credentialRef: extra.credentialRef === undefined ? 'deploy-api' : extra.credentialRef,
    argumentsSchema: { type: 'object', properties: {}, required: [], additionalProperties: true },
    argumentSpecs: {},
    effect: 'idempotent',
    effectDeclared: true,
    correlationWindowMs: 60_000,
    ledgerRetentionMs: null,
    approval: 'none',
    deliberateRepeats: 'allowed',
    source: { file: 'test.yaml', index: 0, line: null },
    target: {
      origin,
      method: 'POST',
      path: '/v1/projects/{project}/deployments',
      body: 'json_arguments',
      headers: { Accept: 'application/json' },
      timeoutMs: 2_000,
      maxResponseBytes: 1024 * 1024,
      idempotencyHeader: 'Idempotency-Key',
      ...target,
    },
    probe: extra.probe ?? null,
  };
}

export const EXECUTION_ID = 'exe_01J4K8J7DX7V0000000000000A';
export const SECRET = 'sk_live_TOPSECRET_4f9a2b';
