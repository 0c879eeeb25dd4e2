import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { buildMarkerScript } from './build-script';
import { parseWrapperReply } from './marker-report';
import { newExecutionId } from '../testing';

// The wrapper run by the host's own /bin/sh (dash on Debian), without SSH in between.
describe('the marker wrapper under a local POSIX shell', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'onceport-wrapper-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const runs = (): number =>
    existsSync(join(dir, 'runs')) ? readFileSync(join(dir, 'runs'), 'utf8').split('\n').filter(Boolean).length : 0;
  const script = (mode: 'run' | 'probe', executionId: string): string =>
    buildMarkerScript({
      mode,
      markerDir: join(dir, 'markers'),
      executionId,
      maxOutputBytes: 1024,
      argv: ['/bin/sh', '-c', `echo run >>'${join(dir, 'runs')}'; echo out; exit 4`],
    });
  const sh = (input: string, env: NodeJS.ProcessEnv = process.env): Buffer => spawnSync('/bin/sh', ['-s'], { input, env }).stdout;
  const scriptIn = (mode: 'run' | 'probe', markerDir: string, executionId: string): string =>
    buildMarkerScript({ mode, markerDir, executionId, maxOutputBytes: 1024, argv: ['/bin/sh', '-c', `echo run >>'${join(dir, 'runs')}'`] });

  it('records start, exit status and output in the marker, and a probe reads the same report', () => {
    const id = newExecutionId();
    const run = parseWrapperReply(sh(script('run', id)));
    expect(run).toMatchObject({ started: true, refused: false, error: null, report: { state: 'completed', exitStatus: 4 } });
    expect(run.report?.state === 'completed' && run.report.stdout.bytes.toString()).toBe('out\n');
    for (const file of ['started', 'pid', 'stdout', 'stderr', 'finished', 'exit'])
      expect(existsSync(join(dir, 'markers', id, file))).toBe(true);
    expect(parseWrapperReply(sh(script('probe', id))).report).toEqual(run.report);
    expect(runs()).toBe(1);
  });

  it('refuses a second start of the same execution id on the host itself', () => {
    const id = newExecutionId();
    sh(script('run', id));
    expect(parseWrapperReply(sh(script('run', id)))).toMatchObject({ refused: true, started: false, report: null });
    expect(runs()).toBe(1);
  });

  it('a program cut short anywhere (a dropped connection mid-upload) runs nothing and leaves no marker', () => {
    const id = newExecutionId();
    const full = script('run', id);
    // Cutting inside the final "onceport_main" word leaves an unknown command; at its end it is whole.
    const lastCall = full.lastIndexOf('onceport_main');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: lastCall + 'onceport_main'.length - 1 }), (cut) => {
        sh(full.slice(0, cut));
        expect(existsSync(join(dir, 'markers', id))).toBe(false);
        expect(runs()).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it("reads as running while the command's runner is still writing its exit status, not as interrupted", async () => {
    const id = newExecutionId();
    const marker = join(dir, 'markers', id);
    const ended = join(dir, 'command-ended');
    // A host too loaded to stamp the end at once: \`date\` stalls 4 s once the command has ended
    // (the report's second look comes after 1 s).
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'date'), `#!/bin/sh\nif [ -e '${ended}' ]; then sleep 4; fi\nPATH='${process.env['PATH']}' exec date "$@"\n`, {
      mode: 0o755,
    });
    const env = { ...process.env, PATH: `${bin}:${process.env['PATH']}` };
    const run = spawn('/bin/sh', ['-s'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
    const runEnded = new Promise((resolve) => run.once('close', resolve));
    run.stdin.end(
      buildMarkerScript({
        mode: 'run',
        markerDir: join(dir, 'markers'),
        executionId: id,
        maxOutputBytes: 1024,
        argv: ['/bin/sh', '-c', `: >'${ended}'`],
      }),
    );
    // The command ended and its runner reaped it (a zombie still answers kill -0).
    const reaped = (): boolean => {
      if (!existsSync(ended) || !existsSync(join(marker, 'pid'))) return false;
      try {
        process.kill(Number(readFileSync(join(marker, 'pid'), 'utf8')), 0);
        return false;
      } catch {
        return true;
      }
    };
    for (const deadline = Date.now() + 20_000; !reaped(); await sleep(20))
      if (Date.now() > deadline) throw new Error('the command did not end within 20 s');

    expect(existsSync(join(marker, 'exit'))).toBe(false);
    expect(parseWrapperReply(sh(script('probe', id), env)).report).toMatchObject({ state: 'running' });
    await runEnded;
    expect(parseWrapperReply(sh(script('probe', id), env)).report).toMatchObject({ state: 'completed', exitStatus: 0 });
  });

  describe('the marker directory', () => {
    it("expands ~/ with the login user's $HOME and makes the directory private (0700)", () => {
      const id = newExecutionId();
      const home = join(dir, 'home');
      mkdirSync(home, { mode: 0o755 });
      const run = parseWrapperReply(sh(scriptIn('run', '~/.onceport/markers', id), { ...process.env, HOME: home }));
      expect(run).toMatchObject({ started: true, error: null, report: { state: 'completed', exitStatus: 0 } });
      expect(existsSync(join(home, '.onceport', 'markers', id, 'exit'))).toBe(true);
      expect(statSync(join(home, '.onceport', 'markers')).mode & 0o777).toBe(0o700);
      expect(parseWrapperReply(sh(scriptIn('probe', '~/.onceport/markers', id), { ...process.env, HOME: home })).report).toEqual(
        run.report,
      );
      expect(runs()).toBe(1);
    });

    it('refuses to run without a home to expand ~/ against', () => {
      const id = newExecutionId();
      expect(
        parseWrapperReply(sh(scriptIn('run', '~/.onceport/markers', id), { PATH: process.env['PATH'] ?? '/usr/bin:/bin' })),
      ).toMatchObject({ error: 'no-home-directory', started: false });
      expect(
        parseWrapperReply(sh(scriptIn('probe', '~/.onceport/markers', id), { PATH: process.env['PATH'] ?? '/usr/bin:/bin' })).report,
      ).toEqual({ state: 'unreadable', why: 'no-home-directory' });
      expect(runs()).toBe(0);
    });

    const unsafe: Array<[string, (markers: string) => void]> = [
      [
        'writable by everyone (chmod 777)',
        (markers) => {
          mkdirSync(markers);
          chmodSync(markers, 0o777);
        },
      ],
      [
        'writable by its group (chmod 770)',
        (markers) => {
          mkdirSync(markers);
          chmodSync(markers, 0o770);
        },
      ],
      [
        'a symbolic link to a private directory',
        (markers) => {
          mkdirSync(`${markers}-real`, { mode: 0o700 });
          symlinkSync(`${markers}-real`, markers);
        },
      ],
    ];
    if (process.getuid?.() === 0) {
      unsafe.push([
        'owned by another user (nobody)',
        (markers) => {
          mkdirSync(markers, { mode: 0o700 });
          chownSync(markers, 65534, 65534);
        },
      ]);
    }
    it.each(unsafe)('refuses a marker directory %s: nothing runs, and a probe calls it unreadable', (_what, prepare) => {
      const markers = join(dir, 'markers');
      prepare(markers);
      const id = newExecutionId();
      expect(parseWrapperReply(sh(script('run', id)))).toMatchObject({
        error: 'marker-dir-unsafe',
        started: false,
        refused: false,
        report: null,
      });
      expect(existsSync(join(markers, id))).toBe(false);
      expect(runs()).toBe(0);
      expect(parseWrapperReply(sh(script('probe', id))).report).toEqual({ state: 'unreadable', why: 'marker-dir-unsafe' });
    });

    it('accepts an existing private directory, and one readable by others (0755) but writable only by its owner', () => {
      const markers = join(dir, 'markers');
      mkdirSync(markers);
      chmodSync(markers, 0o755);
      expect(parseWrapperReply(sh(script('run', newExecutionId())))).toMatchObject({ started: true, report: { state: 'completed' } });
      expect(runs()).toBe(1);
    });
  });
});
