import type { ServerResponse } from 'node:http';
import type { Json } from './effect-ledger';
import { sendJson, sendProblem } from './http-io';
import type { TargetState } from './resource-handler';
import { ROUTES, type EffectRouteName } from './routes';
import { TestTargetError } from './test-target-error';

export const CONTROL_PREFIX = '/__control/';

/**
 * The control API, so a test in another process can drive the target:
 * `POST /__control/behavior` (a BehaviorSpec as JSON), `POST /__control/reset`,
 * `GET /__control/effects?route=&idempotency_key=`, `GET /__control/behavior`, `GET /__control/health`.
 */
export function handleControl(state: TargetState, method: string, url: URL, res: ServerResponse, raw: Buffer): void {
  const action = `${method} ${url.pathname.slice(CONTROL_PREFIX.length)}`;
  switch (action) {
    case 'POST behavior':
      return setBehavior(state, res, raw);
    case 'GET behavior':
      return sendJson(res, 200, state.book.snapshot() as unknown as Json);
    case 'POST reset':
      state.book.reset();
      state.ledger.reset();
      res.writeHead(204).end();
      return;
    case 'GET effects': {
      const route = url.searchParams.get('route');
      if (route !== null && !isEffectRoute(route)) {
        // A typo must not silently widen the filter to every effect.
        return sendProblem(
          res,
          400,
          'Unknown route',
          `no effect route ${JSON.stringify(route)}; effect routes: ${EFFECT_ROUTES.join(', ')}`,
        );
      }
      const key = url.searchParams.get('idempotency_key');
      const effects = state.ledger.list({ ...(route !== null ? { route } : {}), ...(key !== null ? { idempotencyKey: key } : {}) });
      return sendJson(res, 200, { count: effects.length, effects: effects as unknown as Json });
    }
    case 'GET health':
      return sendJson(res, 200, { ok: true });
    default:
      return sendProblem(res, 404, 'Unknown control action', `no control action ${action}`);
  }
}

function setBehavior(state: TargetState, res: ServerResponse, raw: Buffer): void {
  let spec: unknown;
  try {
    spec = JSON.parse(raw.toString('utf8'));
  } catch {
    return sendProblem(res, 400, 'Invalid behaviour', 'the body must be a JSON object (a BehaviorSpec)');
  }
  try {
    state.book.set(spec);
  } catch (error) {
    if (error instanceof TestTargetError) return sendProblem(res, 400, 'Invalid behaviour', error.message);
    throw error;
  }
  sendJson(res, 200, state.book.snapshot() as unknown as Json);
}

const EFFECT_ROUTES = [...new Set(ROUTES.flatMap((r) => (r.kind === 'effect' ? [r.name] : [])))];

function isEffectRoute(name: string): name is EffectRouteName {
  return (EFFECT_ROUTES as string[]).includes(name);
}
