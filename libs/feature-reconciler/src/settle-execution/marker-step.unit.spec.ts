import type { SshToolContract } from '@onceport/domain';
import { markerStep } from './marker-step';

const contract = { target: { host: 'db1', markerDir: '/m', timeoutMs: 60_000 } } as unknown as SshToolContract;
const NOW = Date.parse('2026-11-30T12:00:00Z');
const output = (text: string) => ({ bytes: Buffer.from(text), total: text.length });

describe('markerStep (what one reading of an SSH marker decides)', () => {
  it('completed → settle by exit status with the output as the result', () => {
    const done = (exitStatus: number) =>
      markerStep(
        {
          kind: 'read',
          report: { state: 'completed', exitStatus, startedAt: 'a', finishedAt: 'b', stdout: output('hi'), stderr: output('') },
        },
        contract,
        'exe_1',
        NOW,
      );
    expect(done(0)).toMatchObject({ kind: 'settle', settlement: 'completed', exitStatus: 0 });
    expect(done(3)).toMatchObject({ kind: 'settle', settlement: 'failed', exitStatus: 3, reason: expect.stringContaining('/m/exe_1') });
    expect(JSON.parse((done(0) as { body: Buffer }).body.toString())).toMatchObject({ exit_status: 0, stdout: 'hi' });
  });

  it('absent → a not_applied probe (the plan then dispatches again)', () => {
    expect(markerStep({ kind: 'read', report: { state: 'absent' } }, contract, 'exe_1', NOW)).toMatchObject({
      kind: 'record',
      verdict: 'not_applied',
      thenSettle: null,
    });
  });

  it('a missing marker directory (for an execution that was dispatched) → needs_review at once, never not_applied', () => {
    const step = markerStep({ kind: 'read', report: { state: 'unreadable', why: 'marker-dir-missing' } }, contract, 'exe_1', NOW);
    expect(step).toMatchObject({
      kind: 'record',
      verdict: 'cant_tell',
      thenSettle: { settlement: 'needs_review', reason: expect.stringContaining('a human must check the host') },
    });
    expect((step as { detail: string }).detail).toContain('the marker directory /m is missing on db1');
  });

  it('running → wait within the timeout, then a probe that cannot tell (so the bound on probes applies)', () => {
    const running = (startedAt: string | null) =>
      markerStep({ kind: 'read', report: { state: 'running', startedAt } }, contract, 'exe_1', NOW);
    expect(running('2026-11-30T11:59:30Z')).toMatchObject({ kind: 'wait' });
    expect(running('2026-11-30T11:58:00Z')).toMatchObject({
      kind: 'record',
      verdict: 'cant_tell',
      detail: expect.stringContaining('past the contract'),
    });
    expect(running(null)).toMatchObject({ kind: 'record', verdict: 'cant_tell' });
  });

  it('unreadable → needs_review at once; unreachable → a probe that cannot tell', () => {
    expect(markerStep({ kind: 'read', report: { state: 'unreadable', why: 'x' } }, contract, 'exe_1', NOW)).toMatchObject({
      kind: 'record',
      verdict: 'cant_tell',
      thenSettle: { settlement: 'needs_review' },
    });
    expect(markerStep({ kind: 'unreachable', reason: 'connect_failed: ECONNREFUSED' }, contract, 'exe_1', NOW)).toMatchObject({
      kind: 'record',
      verdict: 'cant_tell',
      thenSettle: null,
    });
  });
});
