/**
 * The resource API the demo contracts point at (libs/domain/test/fixtures/contracts/demo.yaml),
 * plus short aliases. A route's `name` is what behaviours and effect records refer to, so every
 * spelling of one resource shares its effects and its misbehaviour.
 */
export type RouteDef =
  | { readonly kind: 'effect'; readonly name: EffectRouteName; readonly method: 'POST'; readonly pattern: string }
  /** Reads the ledger of the effect route `of`, as a provider's "look up by idempotency key". */
  | {
      readonly kind: 'status';
      readonly name: StatusRouteName;
      readonly method: 'GET';
      readonly pattern: string;
      readonly of: EffectRouteName;
    }
  | { readonly kind: 'read'; readonly name: 'builds'; readonly method: 'GET'; readonly pattern: string };

export type EffectRouteName = 'deployments' | 'emails' | 'payments';
export type StatusRouteName = `${EffectRouteName}.status`;
export type RouteName = EffectRouteName | StatusRouteName | 'builds';

export const ROUTE_NAMES: readonly RouteName[] = [
  'deployments',
  'emails',
  'payments',
  'deployments.status',
  'emails.status',
  'payments.status',
  'builds',
];

/** Ids handed out per effect route, e.g. `dep_0001`. */
export const ID_PREFIX: Readonly<Record<EffectRouteName, string>> = { deployments: 'dep', emails: 'msg', payments: 'ch' };

export const ROUTES: readonly RouteDef[] = [
  { name: 'deployments', kind: 'effect', method: 'POST', pattern: '/v1/projects/{project}/deployments' },
  { name: 'deployments', kind: 'effect', method: 'POST', pattern: '/v1/deployments/{service}' },
  { name: 'deployments.status', kind: 'status', method: 'GET', pattern: '/v1/deployments/by-key/{key}', of: 'deployments' },
  { name: 'emails', kind: 'effect', method: 'POST', pattern: '/v3/messages' },
  { name: 'emails', kind: 'effect', method: 'POST', pattern: '/v1/emails' },
  { name: 'emails.status', kind: 'status', method: 'GET', pattern: '/v3/messages/by-key/{key}', of: 'emails' },
  { name: 'emails.status', kind: 'status', method: 'GET', pattern: '/v1/emails/by-key/{key}', of: 'emails' },
  { name: 'payments', kind: 'effect', method: 'POST', pattern: '/v1/charges' },
  { name: 'payments', kind: 'effect', method: 'POST', pattern: '/v1/payments' },
  { name: 'payments.status', kind: 'status', method: 'GET', pattern: '/v1/charges/by-key/{key}', of: 'payments' },
  { name: 'payments.status', kind: 'status', method: 'GET', pattern: '/v1/payments/by-key/{key}', of: 'payments' },
  { name: 'builds', kind: 'read', method: 'GET', pattern: '/api/builds/{build_id}' },
  { name: 'builds', kind: 'read', method: 'GET', pattern: '/v1/builds/{build_id}' },
];

export interface RouteMatch {
  readonly route: RouteDef;
  readonly params: Readonly<Record<string, string>>;
}

/** No match: `allowed` lists the methods the path does accept (a 405), empty for an unknown path (a 404). */
export function matchRoute(method: string, pathname: string): RouteMatch | { readonly allowed: readonly string[] } {
  const allowed: string[] = [];
  for (const route of ROUTES) {
    const params = matchPattern(route.pattern, pathname);
    if (!params) continue;
    if (route.method === method || (route.method === 'GET' && method === 'HEAD')) return { route, params };
    allowed.push(route.method);
  }
  return { allowed };
}

function matchPattern(pattern: string, pathname: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = pathname.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i += 1) {
    const w = want[i] as string;
    const g = got[i] as string;
    if (w.startsWith('{') && w.endsWith('}')) {
      if (g === '') return null;
      try {
        params[w.slice(1, -1)] = decodeURIComponent(g);
      } catch {
        return null; // malformed percent-encoding: no route, answered as 404
      }
    } else if (w !== g) return null;
  }
  return params;
}
