import { ID_PREFIX, type EffectRouteName } from './routes';

/** A JSON value, as request bodies are recorded. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** One applied side effect: what end-to-end tests count to prove "exactly once". */
export interface Effect {
  readonly id: string;
  readonly route: EffectRouteName;
  /** From the configured idempotency header; null when the request carried none. */
  readonly idempotencyKey: string | null;
  /** Path parameters, e.g. `{ project: 'shop' }`. */
  readonly params: Readonly<Record<string, string>>;
  /**
   * SHA-256 (hex) of the Authorization header as received, null without one: a test can show the
   * right credential was sent without the target ever keeping the secret itself.
   */
  readonly authorizationSha256: string | null;
  /** The parsed JSON body, the raw text when it was not JSON, null when empty. */
  readonly body: Json;
  readonly appliedAt: string;
}

export interface EffectFilter {
  readonly route?: EffectRouteName;
  readonly idempotencyKey?: string;
}

/** The answer a call produced, kept per idempotency key so a repeat can get the same answer. */
export interface StoredReply {
  readonly status: number;
  readonly body: Json;
}

export class EffectLedger {
  private effects: Effect[] = [];
  private replies = new Map<string, StoredReply>();
  private sequence = 0;

  apply(
    route: EffectRouteName,
    idempotencyKey: string | null,
    params: Readonly<Record<string, string>>,
    body: Json,
    authorizationSha256: string | null = null,
  ): StoredReply {
    this.sequence += 1;
    const effect: Effect = {
      id: `${ID_PREFIX[route]}_${String(this.sequence).padStart(4, '0')}`,
      route,
      idempotencyKey,
      params,
      authorizationSha256,
      body,
      appliedAt: new Date().toISOString(),
    };
    this.effects.push(effect);
    const reply: StoredReply = { status: 201, body: describe(effect) };
    // Only the first answer per key is kept: a provider that does not honour idempotency still
    // remembers what it first said.
    const slot = replyKey(route, idempotencyKey);
    if (slot && !this.replies.has(slot)) this.replies.set(slot, reply);
    return reply;
  }

  replay(route: EffectRouteName, idempotencyKey: string | null): StoredReply | undefined {
    const slot = replyKey(route, idempotencyKey);
    return slot ? this.replies.get(slot) : undefined;
  }

  /** The state a provider's status endpoint reports for a key (the first effect with it). */
  status(route: EffectRouteName, idempotencyKey: string): Json | undefined {
    const effect = this.effects.find((e) => e.route === route && e.idempotencyKey === idempotencyKey);
    return effect ? describe(effect) : undefined;
  }

  list(filter: EffectFilter = {}): Effect[] {
    return this.effects.filter(
      (e) =>
        (filter.route === undefined || e.route === filter.route) &&
        (filter.idempotencyKey === undefined || e.idempotencyKey === filter.idempotencyKey),
    );
  }

  reset(): void {
    this.effects = [];
    this.replies = new Map();
    this.sequence = 0;
  }
}

function replyKey(route: EffectRouteName, idempotencyKey: string | null): string | null {
  return idempotencyKey === null ? null : `${route}\u0000${idempotencyKey}`;
}

function describe(effect: Effect): Json {
  return {
    id: effect.id,
    state: 'succeeded',
    idempotency_key: effect.idempotencyKey,
    params: { ...effect.params },
    applied_at: effect.appliedAt,
  };
}
