import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempStateDir } from '../../test/clients';
import { clearBehaviors, setBehavior, takeBehavior } from './behaviors';
import { appendEffect, readEffects } from './effect-ledger';
import { ensureStateDir } from './files';
import { createTask, readTask, viewOf } from './tasks';

describe('test upstream state directory', () => {
  let state: ReturnType<typeof tempStateDir>;
  beforeEach(() => {
    state = tempStateDir();
    ensureStateDir(state.dir);
  });
  afterEach(() => state.remove());

  const effect = (key: string) =>
    appendEffect(state.dir, { tool: 'record_effect', key, note: null, executionId: null, idempotencyKey: null, meta: {} });

  it('reads the ledger in order, filtered, and leaves a line still being written for the next read', () => {
    effect('a');
    effect('b');
    appendFileSync(join(state.dir, 'effects.jsonl'), '{"effect_id":"eff_half');

    expect(readEffects(state.dir).map((e) => e.key)).toEqual(['a', 'b']);
    expect(readEffects(state.dir, { key: 'b' })).toHaveLength(1);
  });

  it('a behaviour is taken `times` times, first set first; clear drops all', () => {
    setBehavior(state.dir, { kind: 'tool_error', times: 2 });
    setBehavior(state.dir, { kind: 'die_mid_call' });
    const call = { tool: 'record_effect', key: 'k' };

    expect([1, 2, 3].map(() => takeBehavior(state.dir, call)?.kind)).toEqual(['tool_error', 'tool_error', 'die_mid_call']);
    expect(takeBehavior(state.dir, call)).toBeNull();

    setBehavior(state.dir, { kind: 'tool_error', times: 3 });
    clearBehaviors(state.dir);
    expect(takeBehavior(state.dir, call)).toBeNull();
  });

  it('without a tool a behaviour reaches only the effect tools', () => {
    setBehavior(state.dir, { kind: 'tool_error' });
    expect(takeBehavior(state.dir, { tool: 'read_status', key: 'k' })).toBeNull();
    expect(takeBehavior(state.dir, { tool: 'slow_effect', key: 'k' })?.kind).toBe('tool_error');
  });

  it('refuses an invalid behaviour, naming the problem', () => {
    expect(() => setBehavior(state.dir, { kind: 'answer_after_ms' } as never)).toThrow(/invalid upstream behaviour: .*ms/);
    expect(() => setBehavior(state.dir, { kind: 'explode' } as never)).toThrow(/invalid upstream behaviour/);
  });

  it('a task is working until its delay passed, then completed with its result; never when the delay is null', () => {
    const task = createTask(state.dir, 1000, { content: [] });
    const stored = readTask(state.dir, task.taskId);

    expect(viewOf(stored!, Date.now()).status).toBe('working');
    expect(viewOf(stored!, Date.now() + 1000)).toMatchObject({ status: 'completed', result: { content: [] } });
    expect(viewOf(createTask(state.dir, null, {}), Number.MAX_SAFE_INTEGER).status).toBe('working');
    expect(readTask(state.dir, '../catalog')).toBeNull();
  });
});
