import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const script = (point: string) => `
require('@swc-node/register');
const { faultPoint } = require(${JSON.stringify(join(__dirname, 'index.ts'))});
faultPoint('somewhere.else');
process.stdout.write('before;');
faultPoint(${JSON.stringify(point)});
process.stdout.write('after;');
`;
const swcEnv = { SWC_NODE_PROJECT: join(__dirname, '../../../tsconfig.base.json') };

describe('faultPoint', () => {
  it('kills the process with SIGKILL at the named point, and only there', () => {
    const run = (env: string | undefined) =>
      spawnSync(process.execPath, ['-e', script('dispatcher.after_send')], {
        env: { ...process.env, ONCEPORT_FAULT_POINT: env, ...swcEnv },
        encoding: 'utf8',
      });
    const killed = run('dispatcher.after_send');
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stdout).toBe('before;');
    expect(killed.stderr).toContain('"fault_point":"dispatcher.after_send"');
    const untouched = run(undefined);
    expect(untouched.status).toBe(0);
    expect(untouched.stdout).toBe('before;after;');
  });

  it('with ONCEPORT_FAULT_ACTION=stop, parks the process at the point; SIGCONT lets it carry on', async () => {
    const child = spawn(process.execPath, ['-e', script('dispatcher.after_send')], {
      env: { ...process.env, ONCEPORT_FAULT_POINT: 'dispatcher.after_send', ONCEPORT_FAULT_ACTION: 'stop', ...swcEnv },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 50_000;
      while (processState(child.pid as number) !== 'T' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(processState(child.pid as number)).toBe('T');
      // The line was written before the stop; the pipe may deliver it to us a moment after we see the 'T'.
      while (!stderr.includes('"fault_point"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(stderr).toContain('"fault_point":"dispatcher.after_send"');
      child.kill('SIGCONT');
      expect(await exited).toBe(0);
      expect(stdout).toBe('before;after;');
    } finally {
      child.kill('SIGKILL'); // a stopped child left behind would keep jest waiting
    }
  }, 60_000);
});

/** The state letter of /proc/<pid>/stat: 'T' is stopped. */
function processState(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] ?? null;
  } catch {
    return null;
  }
}
