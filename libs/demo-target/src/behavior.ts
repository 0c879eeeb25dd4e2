import { z } from 'zod';
import { ROUTE_NAMES, type RouteName } from './routes';
import { TestTargetError } from './test-target-error';

const Status = z.int().min(400).max(599);

/**
 * How the target should (mis)behave, in one vocabulary for `setBehavior` and for
 * `POST /__control/behavior`. At most one of the mode keys; `honour_idempotency` combines with
 * any of them; `times` makes the mode one-shot (then back to normal).
 *
 * @example { route: 'deployments', accept_then_drop: true, times: 1 }
 */
export const BehaviorSpec = z.strictObject({
  /** A route name (see ROUTE_NAMES) or `*` (default): every effect route. */
  route: z.enum(['*', ...ROUTE_NAMES], { error: `expected a route name (${ROUTE_NAMES.join(', ')}) or *` }).optional(),
  normal: z.literal(true).optional(),
  /** Apply the effect, then destroy the socket without answering. */
  accept_then_drop: z.literal(true).optional(),
  /** Apply the effect, answer after N ms. */
  delay_ms: z.int().min(0).max(600_000).optional(),
  /** Apply nothing, answer with this status. */
  fail_status: Status.optional(),
  /** Apply the effect, answer with this status. */
  apply_then_fail_status: Status.optional(),
  /** When true (the default) a repeated idempotency key replays the stored answer and applies nothing. */
  honour_idempotency: z.boolean().optional(),
  times: z.int().min(1).optional(),
});
export type BehaviorSpec = z.input<typeof BehaviorSpec>;

export type Mode =
  | { readonly kind: 'normal' }
  | { readonly kind: 'accept_then_drop' }
  | { readonly kind: 'delay'; readonly ms: number }
  | { readonly kind: 'fail_status'; readonly status: number }
  | { readonly kind: 'apply_then_fail_status'; readonly status: number };

export interface Resolved {
  readonly mode: Mode;
  readonly honourIdempotency: boolean;
}

type Scope = RouteName | '*';

/** The behaviours in force. Modes and idempotency are kept apart so a one-shot mode expiring does not reset `honour_idempotency`. */
export class BehaviorBook {
  private readonly modes = new Map<Scope, { mode: Mode; remaining: number | null }>();
  private readonly honour = new Map<Scope, boolean>();

  set(input: unknown): void {
    const parsed = BehaviorSpec.safeParse(input);
    if (!parsed.success) {
      throw new TestTargetError('invalid_behavior', `invalid behaviour: ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}`);
    }
    const spec = parsed.data;
    const scope: Scope = spec.route ?? '*';
    const modes = modesOf(spec);
    if (modes.length > 1)
      throw new TestTargetError('invalid_behavior', `invalid behaviour: one mode at a time, got ${modes.map((m) => m.kind).join(' and ')}`);
    if (spec.times !== undefined && modes.length === 0)
      throw new TestTargetError('invalid_behavior', 'invalid behaviour: times needs a mode to count');
    if (spec.honour_idempotency !== undefined) this.honour.set(scope, spec.honour_idempotency);
    // `{}` (or just a route) means "back to normal"; `{ honour_idempotency }` alone leaves the mode be.
    const mode = modes[0] ?? (spec.honour_idempotency === undefined ? { kind: 'normal' } : null);
    if (mode !== null) this.modes.set(scope, { mode, remaining: spec.times ?? null });
  }

  /** The behaviour for one request, consuming one use of a counted mode. Global modes only reach effect routes. */
  take(route: RouteName, isEffect: boolean): Resolved {
    const scope: Scope | null = this.modes.has(route) ? route : isEffect && this.modes.has('*') ? '*' : null;
    let mode: Mode = { kind: 'normal' };
    if (scope !== null) {
      const entry = this.modes.get(scope) as { mode: Mode; remaining: number | null };
      mode = entry.mode;
      if (entry.remaining !== null && --entry.remaining <= 0) this.modes.delete(scope);
    }
    return { mode, honourIdempotency: this.honour.get(route) ?? this.honour.get('*') ?? true };
  }

  snapshot(): { modes: Record<string, { mode: Mode; remaining: number | null }>; honour_idempotency: Record<string, boolean> } {
    return { modes: Object.fromEntries(this.modes), honour_idempotency: Object.fromEntries(this.honour) };
  }

  reset(): void {
    this.modes.clear();
    this.honour.clear();
  }
}

function modesOf(spec: z.output<typeof BehaviorSpec>): Mode[] {
  const modes: Mode[] = [];
  if (spec.normal) modes.push({ kind: 'normal' });
  if (spec.accept_then_drop) modes.push({ kind: 'accept_then_drop' });
  if (spec.delay_ms !== undefined) modes.push({ kind: 'delay', ms: spec.delay_ms });
  if (spec.fail_status !== undefined) modes.push({ kind: 'fail_status', status: spec.fail_status });
  if (spec.apply_then_fail_status !== undefined) modes.push({ kind: 'apply_then_fail_status', status: spec.apply_then_fail_status });
  return modes;
}
