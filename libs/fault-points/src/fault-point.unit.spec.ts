import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const script = (point: string) => `
require('@swc-node/register');
const { faultPoint } = require(${JSON.stringify(join(__dirname, 'index.ts'))});
faultPoint('somewhere.else');
process.stdout.write('before;');
faultPoint(${JSON.stringify(point)});
process.stdout.write('after;');
`;

describe('faultPoint', () => {
  it('kills the process with SIGKILL at the named point, and only there', () => {
    const run = (env: string | undefined) =>
      spawnSync(process.execPath, ['-e', script('dispatcher.after_send')], { env: { ...process.env, ONCEPORT_FAULT_POINT: env, SWC_NODE_PROJECT: join(__dirname, '../../../tsconfig.base.json') }, encoding: 'utf8' });
    const killed = run('dispatcher.after_send');
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stdout).toBe('before;');
    expect(killed.stderr).toContain('"fault_point":"dispatcher.after_send"');
    const untouched = run(undefined);
    expect(untouched.status).toBe(0);
    expect(untouched.stdout).toBe('before;after;');
  });
});
