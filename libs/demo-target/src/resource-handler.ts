import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BehaviorBook, Mode } from './behavior';
import type { EffectLedger, Json, StoredReply } from './effect-ledger';
import { bodyValue, sendJson, sendProblem } from './http-io';
import type { RouteMatch } from './routes';

export interface TargetState {
  readonly book: BehaviorBook;
  readonly ledger: EffectLedger;
  /** Lower-cased name of the header that carries the idempotency key. */
  readonly idempotencyHeader: string;
  /** Pending delayed answers, cleared on stop. */
  readonly timers: Set<NodeJS.Timeout>;
}

/** Serves one matched resource route under the behaviour in force for it. */
export function handleResource(state: TargetState, match: RouteMatch, req: IncomingMessage, res: ServerResponse, raw: Buffer): void {
  const { route, params } = match;
  const { mode, honourIdempotency } = state.book.take(route.name, route.kind === 'effect');
  if (mode.kind === 'fail_status') {
    sendProblem(res, mode.status, 'Injected failure', `fail_status: nothing was applied on ${route.name}`);
    return;
  }
  if (route.kind === 'effect') {
    const key = headerValue(req, state.idempotencyHeader);
    const prior = honourIdempotency ? state.ledger.replay(route.name, key) : undefined;
    // The effect is applied before the mode decides how (or whether) the answer goes out:
    // that is exactly the "happened, but the caller never heard" case the gateway must survive.
    const reply = prior ?? state.ledger.apply(route.name, key, params, bodyValue(raw), authorizationDigest(req));
    deliver(state, res, mode, reply, prior ? { 'idempotent-replayed': 'true' } : {});
  } else if (route.kind === 'status') {
    const found = state.ledger.status(route.of, params['key'] ?? '');
    deliver(
      state,
      res,
      mode,
      found === undefined ? { status: 404, body: { error: 'not_found', key: params['key'] ?? null } } : { status: 200, body: found },
      {},
    );
  } else {
    deliver(state, res, mode, { status: 200, body: readOnlyBuild(params) }, {});
  }
}

function deliver(state: TargetState, res: ServerResponse, mode: Mode, reply: StoredReply, headers: Record<string, string>): void {
  switch (mode.kind) {
    case 'accept_then_drop':
      res.socket?.destroy();
      return;
    case 'apply_then_fail_status':
    case 'fail_status':
      sendProblem(res, mode.status, 'Injected failure', `${mode.kind}: the request was processed, the answer replaced`);
      return;
    case 'delay': {
      const timer = setTimeout(() => {
        state.timers.delete(timer);
        sendJson(res, reply.status, reply.body, headers);
      }, mode.ms);
      state.timers.add(timer);
      return;
    }
    case 'normal':
      sendJson(res, reply.status, reply.body, headers);
      return;
    default: {
      const _exhaustive: never = mode;
      return _exhaustive;
    }
  }
}

function headerValue(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  if (Array.isArray(value)) return value[0] ?? null;
  return value === undefined || value === '' ? null : value;
}

/** Only a digest is kept: the raw credential must never sit in the target's memory or its control API. */
function authorizationDigest(req: IncomingMessage): string | null {
  const value = headerValue(req, 'authorization');
  return value === null ? null : createHash('sha256').update(value).digest('hex');
}

function readOnlyBuild(params: Readonly<Record<string, string>>): Json {
  return { id: params['build_id'] ?? null, status: 'passed' };
}
