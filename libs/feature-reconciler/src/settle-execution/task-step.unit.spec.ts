import type { McpToolContract } from '@onceport/domain';
import type { McpObserved, McpTaskProbe } from '@onceport/target-channels';
import { taskStep } from './task-step';

const contract = { target: { upstream: { name: 'files' } }, correlationWindowMs: 60_000 } as unknown as McpToolContract;
const DETECTED = '2026-11-30T12:00:00.000Z';
const unknown = { taskId: 'tsk_1', detectedAt: DETECTED };
const at = (ms: number) => Date.parse(DETECTED) + ms;
const document = (isError: boolean): McpObserved => ({
  kind: 'observed',
  isError,
  body: Buffer.from(JSON.stringify({ content: [], isError })),
  truncated: false,
  contentType: 'application/vnd.onceport.mcp-result+json',
  digest: 'sha256:00',
});
const task = (status: Extract<McpTaskProbe, { kind: 'task' }>['status'], doc: McpObserved | null = null): McpTaskProbe => ({
  kind: 'task',
  status,
  statusMessage: 'msg',
  document: doc,
});

describe('taskStep (what one reading of an upstream task decides)', () => {
  it('completed → settled completed with its result stored as an MCP result; a tool error → failed', () => {
    expect(taskStep(task('completed', document(false)), contract, unknown, at(1))).toMatchObject({
      kind: 'settle',
      settlement: 'completed',
      exitStatus: 0,
      contentType: 'application/vnd.onceport.mcp-result+json',
      reason: expect.stringContaining('task tsk_1 on upstream files completed'),
    });
    expect(taskStep(task('completed', document(true)), contract, unknown, at(1))).toMatchObject({ settlement: 'failed', exitStatus: 1 });
  });

  it('failed → settled failed (the tool ran and failed), never not_applied', () => {
    expect(taskStep(task('failed', document(true)), contract, unknown, at(1))).toMatchObject({
      kind: 'settle',
      settlement: 'failed',
      reason: expect.stringContaining('the tool ran and failed'),
    });
  });

  it('working → wait within the correlation window, a probe that cannot tell past it', () => {
    expect(taskStep(task('working'), contract, unknown, at(59_999))).toMatchObject({ kind: 'wait' });
    expect(taskStep(task('working'), contract, unknown, at(60_000))).toMatchObject({
      kind: 'record',
      verdict: 'cant_tell',
      thenSettle: null,
    });
  });

  it('input_required and cancelled → a human at once', () => {
    for (const status of ['input_required', 'cancelled'] as const)
      expect(taskStep(task(status), contract, unknown, at(1))).toMatchObject({
        kind: 'record',
        verdict: 'cant_tell',
        thenSettle: { settlement: 'needs_review' },
      });
  });

  it('an unknown task id or an unreachable upstream → cannot tell (never not_applied)', () => {
    for (const probe of [
      { kind: 'not_found', reason: 'gone' },
      { kind: 'unreachable', reason: 'ECONNREFUSED' },
    ] as const)
      expect(taskStep(probe, contract, unknown, at(1))).toMatchObject({ kind: 'record', verdict: 'cant_tell', thenSettle: null });
    expect(taskStep(task('completed'), contract, unknown, at(1))).toMatchObject({ kind: 'record', verdict: 'cant_tell' });
  });
});
