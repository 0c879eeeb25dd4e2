import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { buildMarkerScript } from './build-script';
import { parseWrapperReply } from './marker-report';
import { newExecutionId } from './testing';

// The wrapper run by the host's own /bin/sh (dash on Debian), without SSH in between.
describe('the marker wrapper under a local POSIX shell', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'onceport-wrapper-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const runs = (): number => (existsSync(join(dir, 'runs')) ? readFileSync(join(dir, 'runs'), 'utf8').split('\n').filter(Boolean).length : 0);
  const script = (mode: 'run' | 'probe', executionId: string): string =>
    buildMarkerScript({ mode, markerDir: join(dir, 'markers'), executionId, maxOutputBytes: 1024, argv: ['/bin/sh', '-c', `echo run >>'${join(dir, 'runs')}'; echo out; exit 4`] });
  const sh = (input: string): Buffer => spawnSync('/bin/sh', ['-s'], { input }).stdout;

  it('records start, exit status and output in the marker, and a probe reads the same report', () => {
    const id = newExecutionId();
    const run = parseWrapperReply(sh(script('run', id)));
    expect(run).toMatchObject({ started: true, refused: false, error: null, report: { state: 'completed', exitStatus: 4 } });
    expect(run.report?.state === 'completed' && run.report.stdout.bytes.toString()).toBe('out\n');
    for (const file of ['started', 'pid', 'stdout', 'stderr', 'finished', 'exit']) expect(existsSync(join(dir, 'markers', id, file))).toBe(true);
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
});
