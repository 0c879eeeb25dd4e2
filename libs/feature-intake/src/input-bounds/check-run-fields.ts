import { RunId, RunTrigger } from '@onceport/contracts';
import { type BoundViolation } from './bound-violation';
import { childPath } from './bound-violation';

/** The run a call names: `_meta["onceport/run"]` (MCP) or `run` (REST). */
export interface NamedRun {
  readonly id: string;
  /** Given on a run's first call, it opens the run; afterwards it must be the run's own trigger. */
  readonly trigger: string | null;
  /** The attempt the caller is in; the run's current attempt when not given. */
  readonly attempt: number | null;
}

/** A deliberate repeat of an intent that would otherwise match: `_meta["onceport/repeat"]` (MCP) or `repeat` (REST). */
export interface DeliberateRepeat {
  readonly reason: string;
}

export const MAX_REPEAT_REASON_CHARS = 500;
const RUN_KEYS = ['id', 'trigger', 'attempt'];

export function checkNamedRun(value: unknown, path: string, violations: BoundViolation[]): NamedRun | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) {
    violations.push({ path, bound: 'object', message: 'must be an object: {"id": "<run id>", "trigger": "<triggering event>"}' });
    return null;
  }
  const before = violations.length;
  for (const key of Object.keys(value)
    .filter((key) => !RUN_KEYS.includes(key))
    .slice(0, 5)) {
    violations.push({ path: childPath(path, key), bound: 'known field', message: `unknown field; expected ${RUN_KEYS.join(', ')}` });
  }
  const id = RunId.safeParse(value['id']);
  if (!id.success) violations.push({ path: childPath(path, 'id'), bound: 'run id', message: messageOf(id.error) });
  const trigger = value['trigger'] === undefined ? null : RunTrigger.safeParse(value['trigger']);
  if (trigger && !trigger.success)
    violations.push({ path: childPath(path, 'trigger'), bound: 'trigger', message: messageOf(trigger.error) });
  const attempt = value['attempt'];
  if (attempt !== undefined && (typeof attempt !== 'number' || !Number.isInteger(attempt) || attempt < 1 || attempt > 10_000)) {
    violations.push({
      path: childPath(path, 'attempt'),
      bound: 'integer 1-10000',
      message: 'must be the attempt number (1 for the first run)',
    });
  }
  if (violations.length > before) return null;
  return {
    id: value['id'] as string,
    trigger: (value['trigger'] as string | undefined) ?? null,
    attempt: (attempt as number | undefined) ?? null,
  };
}

export function checkDeliberateRepeat(value: unknown, path: string, violations: BoundViolation[]): DeliberateRepeat | null {
  if (value === undefined || value === null) return null;
  const reason = isObject(value) ? value['reason'] : undefined;
  const extra = isObject(value) ? Object.keys(value).filter((key) => key !== 'reason') : [];
  if (typeof reason !== 'string' || !/\S/.test(reason) || reason.length > MAX_REPEAT_REASON_CHARS || extra.length > 0) {
    violations.push({
      path,
      bound: `{"reason": string of 1-${MAX_REPEAT_REASON_CHARS} characters}`,
      message: `must be {"reason": "<why a second effect is meant>"} with a reason of 1–${MAX_REPEAT_REASON_CHARS} characters`,
    });
    return null;
  }
  return { reason };
}

function messageOf(error: { issues: readonly { message: string }[] }): string {
  return error.issues[0]?.message ?? 'invalid';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
