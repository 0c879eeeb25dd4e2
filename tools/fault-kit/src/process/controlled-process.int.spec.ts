import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CleanupStack } from '../cleanup-stack';
import { freePort, isPortOpen } from '../net/ports';
import { ControlledProcess, type ControlledProcessOptions } from './controlled-process';
import { processState } from './proc-state';

const cleanup = new CleanupStack();
afterEach(() => cleanup.run());

async function startNode(script: string, options: Partial<ControlledProcessOptions> = {}): Promise<ControlledProcess> {
  const started = await ControlledProcess.start({ command: process.execPath, args: ['-e', script], name: 'child', ...options });
  return cleanup.add(started, (child) => child.stop({ graceMs: 1_000 }).then(() => undefined));
}

/** Pids of live processes whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker) && processState(Number(pid)) !== 'Z';
      } catch {
        return false; // exited while we looked
      }
    })
    .map(Number);
}

const TICKER = `let n = 0; console.log('ready ' + process.pid); setInterval(() => console.log('tick ' + n++), 10);`;

describe('ControlledProcess (real child processes)', () => {
  it('waits for a readiness line, captures stdout and stderr, and reports the exit', async () => {
    const child = await startNode(`console.error('warming'); console.log('ready'); setTimeout(() => process.exit(3), 50);`, {
      ready: { logLine: /^ready$/ },
    });
    expect(child.running).toBe(true);
    expect(await child.waitForExit()).toEqual({ code: 3, signal: null });
    expect(child.running).toBe(false);
    expect(child.output('stdout')).toBe('ready\n');
    expect(child.output('stderr')).toBe('warming\n');
    expect(child.exitInfo()).toEqual({ code: 3, signal: null });
  });

  it('waits for a TCP port and passes env through', async () => {
    const port = await freePort();
    const child = await startNode(`require('node:net').createServer().listen(Number(process.env.PORT), '127.0.0.1')`, {
      env: { PORT: String(port) },
      ready: { port },
    });
    expect(await isPortOpen(port)).toBe(true);
    expect(await child.kill()).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await isPortOpen(port)).toBe(false);
  });

  it('kill(SIGTERM) lets a handler run; stop() escalates to SIGKILL when SIGTERM is ignored', async () => {
    const polite = await startNode(
      `process.on('SIGTERM', () => { console.log('bye'); process.exit(0); }); console.log('ready'); setInterval(() => {}, 1000);`,
      {
        ready: { logLine: 'ready' },
      },
    );
    expect(await polite.kill('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(polite.output()).toContain('bye');
    const stubborn = await startNode(`process.on('SIGTERM', () => console.log('no')); console.log('ready'); setInterval(() => {}, 1000);`, {
      ready: { logLine: 'ready' },
    });
    // Seen to ignore SIGTERM first, so a loaded machine that runs the handler late can't fail this.
    stubborn.signal('SIGTERM');
    await stubborn.waitForOutput(/^no$/);
    expect(await stubborn.stop({ graceMs: 200 })).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('pause() stops the process (SIGSTOP) until resume() (SIGCONT)', async () => {
    const child = await startNode(TICKER, { ready: { logLine: 'ready' } });
    await child.waitForOutput('tick 2');
    await child.pause();
    expect(child.paused).toBe(true);
    expect(processState(child.pid!)).toBe('T');
    // Lines written just before the stop may still sit in the pipe; after the timer, let one poll
    // phase read them (timers run before I/O in a loop turn, so a busy machine could reorder this).
    await sleep(50);
    await new Promise((resolve) => setImmediate(resolve));
    const frozen = child.output();
    await sleep(150);
    expect(child.output()).toBe(frozen);
    await child.resume();
    expect(child.paused).toBe(false);
    const lastTick = Number(/tick (\d+)\n$/.exec(frozen)?.[1]);
    await child.waitForOutput(`tick ${lastTick + 3}`);
  });

  it('SIGKILL works on a paused process; SIGTERM is delivered to it too', async () => {
    const child = await startNode(TICKER, { ready: { logLine: 'ready' } });
    await child.pause();
    expect(await child.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    await child.restart();
    await child.pause();
    expect(await child.kill('SIGTERM')).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('restart() runs it again with the same options: new pid, fresh output, ready again', async () => {
    const child = await startNode(TICKER, { ready: { logLine: 'ready' } });
    const firstPid = child.pid;
    await child.waitForOutput('tick 1');
    await child.restart();
    expect(child.pid).not.toBe(firstPid);
    expect(child.output()).toMatch(new RegExp(`^ready ${child.pid}\n`));
    expect(child.output()).not.toContain(`ready ${firstPid}`);
    await child.kill();
    await child.restart();
    expect(child.running).toBe(true);
  });

  it('fails start with the output when the process exits before it is ready', async () => {
    await expect(startNode(`console.error('config is broken'); process.exit(78)`, { ready: { logLine: 'ready' } })).rejects.toThrow(
      /config is broken/,
    );
    const port = await freePort();
    await expect(startNode(`console.error('no listening today'); process.exit(1)`, { ready: { port } })).rejects.toThrow(
      /no listening today/,
    );
  });

  it('fails start on a readiness timeout and kills what it started', async () => {
    // A marker in the command line finds the child in /proc whether or not it printed anything yet.
    const marker = `readiness-timeout-${randomUUID()}`;
    const start = ControlledProcess.start({
      command: process.execPath,
      args: ['-e', `setInterval(() => {}, 1000) // ${marker}`],
      ready: { logLine: 'never printed' },
      readyTimeoutMs: 300,
    });
    await expect(start).rejects.toThrow(/no line matching/);
    expect(processesWith(marker)).toEqual([]);
  });

  it('names a missing binary', async () => {
    await expect(ControlledProcess.start({ command: '/nonexistent/binary' })).rejects.toMatchObject({ code: 'binary_missing' });
  });

  it('with processGroup, signals reach the whole group (a shell and its children)', async () => {
    const child = await ControlledProcess.start({
      command: 'sh',
      args: ['-c', 'sleep 30 & echo "sleeper $!"; wait'],
      processGroup: true,
      ready: { logLine: 'sleeper' },
    });
    cleanup.add(child, (started) => started.stop().then(() => undefined));
    const sleeper = Number(/sleeper (\d+)/.exec(child.output())?.[1]);
    expect(processState(sleeper)).not.toBeNull();
    await child.kill('SIGKILL');
    for (let attempt = 0; attempt < 100 && processState(sleeper) !== null && processState(sleeper) !== 'Z'; attempt++) await sleep(10);
    expect([null, 'Z']).toContain(processState(sleeper));
  });

  it('writes to stdin', async () => {
    const child = await startNode(`process.stdin.on('data', (d) => console.log('got ' + d.toString().trim())); console.log('ready')`, {
      ready: { logLine: 'ready' },
    });
    child.write('hello\n');
    expect(await child.waitForOutput(/^got /)).toBe('got hello');
  });
});
