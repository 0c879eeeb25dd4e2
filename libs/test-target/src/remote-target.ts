import { request } from 'undici';
import { type BehaviorSpec, type Effect, type EffectFilter, TestTargetError } from '@onceport/demo-target';

/** A test target running in another process, driven over its control API. */
export interface RemoteTestTarget {
  readonly url: string;
  setBehavior(spec: BehaviorSpec): Promise<void>;
  reset(): Promise<void>;
  effects(filter?: EffectFilter): Promise<Effect[]>;
  effectCount(filter?: EffectFilter): Promise<number>;
}

/**
 * @example
 * const target = remoteTestTarget('http://127.0.0.1:8787');
 * await target.setBehavior({ route: 'payments', delay_ms: 5000, times: 1 });
 */
export function remoteTestTarget(url: string): RemoteTestTarget {
  const base = url.replace(/\/+$/, '');
  const effects = async (filter: EffectFilter = {}): Promise<Effect[]> => {
    const query = new URLSearchParams();
    if (filter.route !== undefined) query.set('route', filter.route);
    if (filter.idempotencyKey !== undefined) query.set('idempotency_key', filter.idempotencyKey);
    const answer = (await call(base, 'GET', `effects?${query.toString()}`)) as { effects: Effect[] };
    return answer.effects;
  };
  return {
    url: base,
    setBehavior: async (spec) => {
      await call(base, 'POST', 'behavior', spec);
    },
    reset: async () => {
      await call(base, 'POST', 'reset', {});
    },
    effects,
    effectCount: async (filter) => (await effects(filter)).length,
  };
}

async function call(base: string, method: 'GET' | 'POST', action: string, body?: unknown): Promise<unknown> {
  const response = await request(`${base}/__control/${action}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) {
    const detail = parseDetail(text);
    const code = response.statusCode === 400 && action === 'behavior' ? 'invalid_behavior' : 'control_failed';
    throw new TestTargetError(code, `${method} /__control/${action} answered ${response.statusCode}: ${detail}`);
  }
  return text === '' ? null : (JSON.parse(text) as unknown);
}

function parseDetail(text: string): string {
  try {
    const problem = JSON.parse(text) as { detail?: unknown };
    return typeof problem.detail === 'string' ? problem.detail : text;
  } catch {
    return text; // not problem JSON: show it as it came
  }
}
