import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BehaviorBook, type BehaviorSpec } from './behavior';
import { CONTROL_PREFIX, handleControl } from './control-api';
import { EffectLedger, type Effect, type EffectFilter } from './effect-ledger';
import { readBody, sendProblem } from './http-io';
import { handleResource, type TargetState } from './resource-handler';
import { matchRoute } from './routes';

export interface DemoTargetOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1: the target is never reachable from outside the machine. */
  readonly host?: string;
  /** The header that carries the idempotency key. Default `Idempotency-Key`. */
  readonly idempotencyHeader?: string;
}

/** A running demo target, driven in-process. */
export interface DemoTarget {
  /** e.g. `http://127.0.0.1:53124`: the origin to put in contracts. */
  readonly url: string;
  readonly port: number;
  /** Every applied effect, oldest first. */
  effects(filter?: EffectFilter): Effect[];
  effectCount(filter?: EffectFilter): number;
  /** Throws a TestTargetError (`invalid_behavior`) for a spec it cannot honour. */
  setBehavior(spec: BehaviorSpec): void;
  /** Forgets effects, stored answers and behaviours. */
  reset(): void;
  stop(): Promise<void>;
}

/**
 * Starts a real HTTP target that records every applied effect and misbehaves on demand: the demo
 * target `npm start` serves (so a production part), and the target the tests send to (through
 * `@onceport/test-target`, which adds the drivers only tests use).
 *
 * @example
 * const target = await startDemoTarget();
 * target.setBehavior({ route: 'deployments', accept_then_drop: true, times: 1 });
 * expect(target.effectCount({ route: 'deployments' })).toBe(1);
 * await target.stop();
 */
export async function startDemoTarget(options: DemoTargetOptions = {}): Promise<DemoTarget> {
  const state: TargetState = {
    book: new BehaviorBook(),
    ledger: new EffectLedger(),
    idempotencyHeader: (options.idempotencyHeader ?? 'Idempotency-Key').toLowerCase(),
    timers: new Set(),
  };
  const server = createServer((req, res) => {
    route(state, req, res).catch((error: unknown) => {
      sendProblem(res, 500, 'Test target failure', error instanceof Error ? error.message : String(error));
    });
  });
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    effects: (filter) => state.ledger.list(filter),
    effectCount: (filter) => state.ledger.list(filter).length,
    setBehavior: (spec) => state.book.set(spec),
    reset: () => {
      state.book.reset();
      state.ledger.reset();
    },
    stop: async () => {
      for (const timer of state.timers) clearTimeout(timer);
      state.timers.clear();
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

async function route(state: TargetState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const raw = await readBody(req);
  if (raw === null) return sendProblem(res, 413, 'Request too large', 'the body is over 1 MiB');
  const url = new URL(req.url ?? '/', 'http://demo-target.invalid');
  const method = req.method ?? 'GET';
  if (url.pathname.startsWith(CONTROL_PREFIX)) return handleControl(state, method, url, res, raw);
  const match = matchRoute(method, url.pathname);
  if ('route' in match) return handleResource(state, match, req, res, raw);
  if (match.allowed.length > 0) return sendProblem(res, 405, 'Method not allowed', `${url.pathname} accepts ${match.allowed.join(', ')}`);
  return sendProblem(res, 404, 'Not found', `no route ${method} ${url.pathname}`);
}
