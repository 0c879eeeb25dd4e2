import { randomUUID } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { z } from 'zod';
import { STATE_FILES, appendJsonLine, readJsonLines, statePath } from './files';

/** The tools a behaviour reaches when it names none: the ones with an effect (never `read_status`). */
export const EFFECT_TOOLS = ['record_effect', 'slow_effect', 'maybe_task'] as const;

const scope = {
  /** Only calls of this tool (default: every effect tool; name `read_status` to make it misbehave too). */
  tool: z.string().min(1).optional(),
  /** Only calls with this `key` argument. */
  key: z.string().optional(),
  /** How many calls it applies to, then the upstream behaves again (default 1). */
  times: z.int().min(1).max(1000).optional(),
};

/**
 * How the upstream misbehaves on its next matching call(s).
 *
 * - `cut_after_apply`: apply the effect, then lose the answer (HTTP: the socket is destroyed;
 *   stdio: the process exits with code 1 before writing it).
 * - `die_mid_call`: die before applying anything (stdio: `process.exit(137)`; HTTP: the socket is destroyed).
 * - `answer_after_ms`: apply, then answer after `ms`.
 * - `error_before_apply`: answer a JSON-RPC error -32602, apply nothing.
 * - `tool_error`: answer a tool result with `isError: true`, apply nothing.
 *
 * @example setBehavior(stateDir, { kind: 'cut_after_apply', tool: 'record_effect', times: 1 })
 */
export const UpstreamBehavior = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('cut_after_apply'), ...scope }),
  z.strictObject({ kind: z.literal('die_mid_call'), ...scope }),
  z.strictObject({ kind: z.literal('answer_after_ms'), ms: z.int().min(0).max(600_000), ...scope }),
  z.strictObject({ kind: z.literal('error_before_apply'), ...scope }),
  z.strictObject({ kind: z.literal('tool_error'), ...scope }),
]);
export type UpstreamBehavior = z.input<typeof UpstreamBehavior>;
export type BehaviorKind = UpstreamBehavior['kind'];

type StoredBehavior = z.output<typeof UpstreamBehavior> & { readonly id: string };
type BehaviorLine = StoredBehavior | { readonly clear: true };

/** Adds a behaviour (behaviours set earlier stay in force until used up); returns its id. */
export function setBehavior(stateDir: string, behavior: UpstreamBehavior): string {
  const parsed = UpstreamBehavior.safeParse(behavior);
  if (!parsed.success) throw new Error(`invalid upstream behaviour: ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}`);
  const id = `bhv_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  appendJsonLine(statePath(stateDir, STATE_FILES.behaviors), { ...parsed.data, id });
  return id;
}

/** Back to normal: every behaviour set so far is dropped. */
export function clearBehaviors(stateDir: string): void {
  appendJsonLine(statePath(stateDir, STATE_FILES.behaviors), { clear: true });
}

/**
 * Takes one use of the first behaviour in force that matches this call. A use is an exclusively
 * created marker file, so two upstream processes sharing the directory never both take the last one.
 */
export function takeBehavior(stateDir: string, call: { tool: string; key: string | null }): StoredBehavior | null {
  for (const behavior of behaviorsInForce(stateDir)) {
    if (!matches(behavior, call)) continue;
    for (let use = 0; use < (behavior.times ?? 1); use++) {
      if (claim(statePath(stateDir, STATE_FILES.consumed, `${behavior.id}.${use}`))) return behavior;
    }
  }
  return null;
}

function behaviorsInForce(stateDir: string): StoredBehavior[] {
  const lines = readJsonLines(statePath(stateDir, STATE_FILES.behaviors)) as BehaviorLine[];
  const sinceClear = lines.slice(lines.findLastIndex((line) => 'clear' in line) + 1);
  return sinceClear as StoredBehavior[];
}

function matches(behavior: StoredBehavior, call: { tool: string; key: string | null }): boolean {
  const toolMatches = behavior.tool === undefined ? (EFFECT_TOOLS as readonly string[]).includes(call.tool) : behavior.tool === call.tool;
  return toolMatches && (behavior.key === undefined || behavior.key === call.key);
}

function claim(path: string): boolean {
  try {
    closeSync(openSync(path, 'wx'));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}
