import { runCli } from './main';

async function run(...argv: string[]): Promise<{ status: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const status = await runCli(argv, { out: (text) => (out += text), err: (text) => (err += text) });
  return { status, out, err };
}

describe('fault-kit CLI arguments (in process; the process itself is tested in cli.int.spec.ts)', () => {
  it('--help prints the usage with every command and exits 0; no command at all is a usage error', async () => {
    const help = await run('--help');
    expect(help.status).toBe(0);
    expect(help.out).toMatch(/^Usage: .*cli\.ts <command>/m);
    expect(help.out).toMatch(/proxy .*\n[\s\S]*nats .*\n[\s\S]*postgres /);
    expect((await run('proxy', '--help')).status).toBe(0);
    expect((await run()).status).toBe(2);
  });

  it('refuses a non-loopback upstream or listen address with status 2 and says why', async () => {
    const upstream = await run('proxy', '--upstream', '192.0.2.1:5432');
    expect(upstream).toMatchObject({ status: 2, err: expect.stringMatching(/"192\.0\.2\.1" is not a loopback address/) });
    const listen = await run('proxy', '--listen', '0.0.0.0:15432', '--upstream', '127.0.0.1:5432');
    expect(listen).toMatchObject({ status: 2, err: expect.stringMatching(/listen host "0\.0\.0\.0"/) });
  });

  it('rejects bad usage with status 2: two starting faults, unknown flags, bad numbers, unknown commands', async () => {
    expect(await run('proxy', '--upstream', '127.0.0.1:1', '--refuse', '--half-open')).toMatchObject({
      status: 2,
      err: expect.stringMatching(/at most one starting fault/),
    });
    expect((await run('proxy', '--upstream', '127.0.0.1:1', '--jitter', '5')).status).toBe(2);
    expect(await run('proxy', '--upstream', '127.0.0.1:1', '--latency', 'soon')).toMatchObject({
      status: 2,
      err: expect.stringMatching(/--latency needs a number/),
    });
    expect(await run('proxy', '--upstream', 'nowhere')).toMatchObject({ status: 2, err: expect.stringMatching(/not host:port/) });
    expect(await run('proxy')).toMatchObject({ status: 2, err: expect.stringMatching(/needs --upstream/) });
    expect(await run('chaos')).toMatchObject({ status: 2, err: expect.stringMatching(/unknown command "chaos"/) });
  });
});
