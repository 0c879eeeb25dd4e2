import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { remoteTestTarget } from './remote-target';
import { call, post } from '../test/http';

const ROOT = join(__dirname, '../../..');
const MAIN = 'libs/test-target/src/main.ts';

function runTarget(args: string[]): ChildProcess {
  return spawn(process.execPath, ['-r', '@swc-node/register', MAIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Resolves with the URL from the process's single readiness line. */
function readyUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const found = /test-target listening on (\S+)/.exec(out);
      if (found) resolve(found[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`test-target exited (${code}) before it was ready`)));
  });
}

describe('test target as its own process', () => {
  jest.setTimeout(30_000);

  it('is driven over its control API by another process, and stops on SIGTERM', async () => {
    const child = runTarget(['--port', '0']);
    const url = await readyUrl(child);
    const target = remoteTestTarget(url);

    await target.setBehavior({ route: 'payments', accept_then_drop: true, times: 1 });
    await expect(post(`${url}/v1/charges`, { amount_cents: 100 }, 'exe_P')).rejects.toBeDefined();
    const retry = await post(`${url}/v1/charges`, { amount_cents: 100 }, 'exe_P');

    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await target.effectCount({ route: 'payments' })).toBe(1);
    expect((await call(`${url}/v1/charges/by-key/exe_P`, 'GET')).status).toBe(200);
    await target.reset();
    expect(await target.effectCount()).toBe(0);

    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('refuses a bad --port with a message and exit code 1', async () => {
    const child = runTarget(['--port', 'eighty']);
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));

    const [code] = (await once(child, 'exit')) as [number | null];

    expect(code).toBe(1);
    expect(err).toContain('--port must be an integer');
  });
});
