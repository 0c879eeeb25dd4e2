import { CleanupStack } from './cleanup-stack';
import { freePort } from './net/ports';
import { ControlledProcess } from './process/controlled-process';
import { tsNodeArgs, WORKSPACE_ROOT } from './testing/node-child';
import { connectClient, type EchoServer, startEchoServer } from './testing/tcp';

const cleanup = new CleanupStack();
afterEach(() => cleanup.run());

async function cli(args: string[], ready?: string): Promise<ControlledProcess> {
  const child = await ControlledProcess.start({
    name: 'fault-kit-cli',
    command: process.execPath,
    args: tsNodeArgs('cli.ts', ...args),
    cwd: WORKSPACE_ROOT,
    ...(ready ? { ready: { logLine: ready } } : {}),
  });
  return cleanup.add(child, (started) => started.stop({ graceMs: 2_000 }).then(() => undefined));
}

describe('fault-kit CLI (a real process)', () => {
  let echo: EchoServer;

  beforeEach(async () => {
    echo = cleanup.add(await startEchoServer(), (server) => server.stop());
  });

  it('proxy: starts with a fault from flags, switches faults from stdin, quits cleanly', async () => {
    const port = await freePort();
    const child = await cli(
      ['proxy', '--listen', `127.0.0.1:${port}`, '--upstream', `127.0.0.1:${echo.port}`, '--latency', '60'],
      'fault proxy listening',
    );
    expect(child.output()).toContain('(latency 60 ms (both))');
    const client = await connectClient(port);
    const started = Date.now();
    client.socket.write('slow');
    await client.waitForBytes(4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(120);

    child.write('blackhole\n');
    await child.waitForOutput('fault: blackhole (both)');
    client.socket.write('gone');
    // The bytes and the stdin command race inside the CLI: ask until the count shows them.
    const asking = setInterval(() => child.write('status\n'), 100);
    try {
      await child.waitForOutput(/4 dropped/);
    } finally {
      clearInterval(asking);
    }

    child.write('clear\n');
    await child.waitForOutput('fault: none');
    client.socket.write('back');
    expect((await client.waitForBytes(8)).subarray(4).toString()).toBe('back');

    child.write('quit\n');
    expect(await child.waitForExit()).toEqual({ code: 0, signal: null });
  });

  it('exits with status 2 and a message on bad usage', async () => {
    const child = await cli(['proxy', '--upstream', '192.0.2.1:5432']);
    expect(await child.waitForExit()).toEqual({ code: 2, signal: null });
    expect(child.output('stderr')).toMatch(/"192\.0\.2\.1" is not a loopback address/);
  });
});
