import { join } from 'node:path';
import { CleanupStack } from './cleanup-stack';
import { atNamedPoint } from './named-point';
import { ControlledProcess } from './process/controlled-process';
import { processState } from './process/proc-state';
import { tsNodeArgs, WORKSPACE_ROOT } from './testing/node-child';

const cleanup = new CleanupStack();
afterEach(() => cleanup.run());

async function startChild(env: Record<string, string>): Promise<ControlledProcess> {
  const child = await ControlledProcess.start({
    name: 'fault-point-child',
    command: process.execPath,
    args: tsNodeArgs('testing/fixtures/fault-point-child.ts'),
    cwd: WORKSPACE_ROOT,
    // The tsconfig paths let the child resolve `@onceport/fault-points`, where faultPoint lives.
    env: { SWC_NODE_PROJECT: join(WORKSPACE_ROOT, 'tsconfig.base.json'), ...env },
  });
  return cleanup.add(child, (started) => started.stop({ signal: 'SIGKILL' }).then(() => undefined));
}

describe('named fault points (a real child process calling faultPoint)', () => {
  it('stops the armed process at the point, so the harness can SIGKILL it exactly there', async () => {
    const point = atNamedPoint('after-step-one');
    const child = await startChild({ ...point.env });
    const hit = await point.reached(child);
    expect(hit).toEqual({ name: 'after-step-one', pid: child.pid, stopped: true });
    expect(processState(hit.pid)).toBe('T');
    expect(child.output('stderr')).toContain(`{"fault_point":"after-step-one","pid":${child.pid}}`);
    expect(await point.killWhenReached(child)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(child.output('stdout')).toBe('step one done\n');
  });

  it('a stopped process continued with SIGCONT carries on as if nothing happened', async () => {
    const point = atNamedPoint('after-step-one');
    const child = await startChild({ ...point.env });
    await point.reached(child);
    child.signal('SIGCONT');
    expect(await child.waitForExit()).toEqual({ code: 0, signal: null });
    expect(child.output('stdout')).toBe('step one done\nstep two done\n');
  });

  it('does nothing when another point (or none) is armed', async () => {
    const child = await startChild({ ...atNamedPoint('somewhere-else').env });
    expect(await child.waitForExit()).toEqual({ code: 0, signal: null });
    expect(child.output('stdout')).toBe('step one done\nstep two done\n');
    expect(child.output('stderr')).not.toContain('fault_point');
  });

  it('with the kill action the process dies at the point on its own, and is recognised there', async () => {
    const point = atNamedPoint('after-step-one', 'kill');
    const child = await startChild({ ...point.env });
    const pid = child.pid; // read now: once it has died at the point, the handle has no pid
    expect(await point.reached(child)).toEqual({ name: 'after-step-one', pid, stopped: false });
    expect(await point.killWhenReached(child)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(child.output('stdout')).toBe('step one done\n');
  });
});
