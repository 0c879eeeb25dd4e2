import { randomUUID } from 'node:crypto';
import { STATE_FILES, appendJsonLine, readJsonLines, statePath } from './files';

/** One effect the upstream applied: what the world saw, in the order it saw it. */
export interface UpstreamEffect {
  readonly effect_id: string;
  readonly tool: string;
  readonly key: string;
  readonly note: string | null;
  /** `_meta["onceport/execution_id"]` of the call that applied it, when the caller sent one. */
  readonly executionId: string | null;
  /** `_meta[IDEMPOTENCY_META_KEY]` of that call, when sent (a repeat of it applies nothing). */
  readonly idempotencyKey: string | null;
  /** The call's `_meta` without the protocol's own `io.modelcontextprotocol/*` keys. */
  readonly meta: Readonly<Record<string, unknown>>;
  readonly at: string;
  /** The upstream process that applied it (a restarted stdio upstream has a new one). */
  readonly pid: number;
}

export interface EffectFilter {
  readonly key?: string;
  readonly tool?: string;
  readonly executionId?: string;
}

export function readEffects(stateDir: string, filter: EffectFilter = {}): UpstreamEffect[] {
  return (readJsonLines(statePath(stateDir, STATE_FILES.effects)) as UpstreamEffect[]).filter(
    (effect) =>
      (filter.key === undefined || effect.key === filter.key) &&
      (filter.tool === undefined || effect.tool === filter.tool) &&
      (filter.executionId === undefined || effect.executionId === filter.executionId),
  );
}

export type NewEffect = Omit<UpstreamEffect, 'effect_id' | 'at' | 'pid'>;

/** Appends the effect (durable in the file before the call is answered, or the process exits). */
export function appendEffect(stateDir: string, effect: NewEffect): UpstreamEffect {
  const applied: UpstreamEffect = {
    effect_id: `eff_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    ...effect,
    at: new Date().toISOString(),
    pid: process.pid,
  };
  appendJsonLine(statePath(stateDir, STATE_FILES.effects), applied);
  return applied;
}
