import type { KnownExecutionState, ToolContract } from '@onceport/domain';
import { type SettlementLimits, planSettlement } from './plan-settlement';

const limits: SettlementLimits = { maxProbes: 3, probeBackoffMs: 1000, maxProbeBackoffMs: 10_000, maxAttempts: 3 };
const NOW = Date.parse('2026-11-30T12:00:00Z');

function contract(effect: ToolContract['effect'], probe: boolean, effectDeclared = true): ToolContract {
  return { name: 't', channel: 'http', effect, effectDeclared, probe: probe ? { kind: 'http' } : null } as unknown as ToolContract;
}
function unknownState(attempt = 1, probes = 0, lastVerdict: string | null = null): KnownExecutionState {
  return {
    status: 'dispatched_unknown',
    unknown: { attempt, probes, lastVerdict, reason: 'reset', detectedAt: '' },
  } as unknown as KnownExecutionState;
}
const plan = (state: KnownExecutionState, c: ToolContract | null, lastProbeAtMs: number | null = null) =>
  planSettlement({ state, contract: c, nowMs: NOW, lastProbeAtMs, limits });

describe('planSettlement (DESIGN.md §3: what happens after an unknown outcome)', () => {
  it('given a dispatch whose lease still runs, then it waits for the lease', () => {
    const state = {
      status: 'dispatched',
      lease: { attempt: 1, leaseExpiresAt: new Date(NOW + 5000).toISOString() },
    } as unknown as KnownExecutionState;
    expect(plan(state, contract('idempotent', true))).toMatchObject({ kind: 'wait', untilMs: NOW + 5000 });
  });

  it('given a dispatch past its lease (the dispatcher died after DispatchStarted), then the outcome becomes unknown', () => {
    const state = {
      status: 'dispatched',
      lease: { attempt: 2, leaseExpiresAt: new Date(NOW - 1).toISOString() },
    } as unknown as KnownExecutionState;
    expect(plan(state, contract('idempotent', true))).toMatchObject({ kind: 'mark_unknown', attempt: 2 });
  });

  it('none → retry within limits, then failed', () => {
    expect(plan(unknownState(1), contract('none', false))).toMatchObject({ kind: 'settle', settlement: 'not_applied' });
    expect(plan(unknownState(3), contract('none', false))).toMatchObject({ kind: 'settle', settlement: 'failed' });
  });

  it('idempotent with a probe → probe first; applied → completed; not applied → re-dispatch under the same id', () => {
    expect(plan(unknownState(1, 0), contract('idempotent', true))).toEqual({ kind: 'probe', attempt: 1, probeNumber: 1 });
    expect(plan(unknownState(1, 1, 'applied'), contract('idempotent', true))).toMatchObject({ kind: 'settle', settlement: 'completed' });
    expect(plan(unknownState(1, 1, 'not_applied'), contract('idempotent', true))).toMatchObject({
      kind: 'settle',
      settlement: 'not_applied',
    });
  });

  it('idempotent without a probe → re-dispatch with the same execution id as the idempotency key, within limits', () => {
    expect(plan(unknownState(1), contract('idempotent', false))).toMatchObject({ kind: 'settle', settlement: 'not_applied' });
    expect(plan(unknownState(3), contract('idempotent', false))).toMatchObject({ kind: 'settle', settlement: 'needs_review' });
  });

  it('conditional → probe; re-dispatch only when the probe says the condition still holds (not applied)', () => {
    expect(plan(unknownState(1, 0), contract('conditional', true))).toMatchObject({ kind: 'probe' });
    expect(plan(unknownState(1, 1, 'not_applied'), contract('conditional', true))).toMatchObject({
      kind: 'settle',
      settlement: 'not_applied',
    });
    expect(plan(unknownState(1, 1, 'applied'), contract('conditional', true))).toMatchObject({ kind: 'settle', settlement: 'completed' });
  });

  it('irreversible and undeclared → never re-sent: needs_review (a probe may still prove it applied)', () => {
    expect(plan(unknownState(1), contract('irreversible', false))).toMatchObject({ kind: 'settle', settlement: 'needs_review' });
    expect(plan(unknownState(1), contract('irreversible', false, false))).toMatchObject({
      kind: 'settle',
      settlement: 'needs_review',
      reason: expect.stringContaining('undeclared'),
    });
    expect(plan(unknownState(1, 1, 'not_applied'), contract('irreversible', true))).toMatchObject({
      kind: 'settle',
      settlement: 'needs_review',
    });
    expect(plan(unknownState(1, 1, 'applied'), contract('irreversible', true))).toMatchObject({ kind: 'settle', settlement: 'completed' });
  });

  it("a probe that can't tell backs off, and after the bound goes to needs_review", () => {
    expect(plan(unknownState(1, 1, 'cant_tell'), contract('idempotent', true), NOW - 500)).toMatchObject({
      kind: 'wait',
      untilMs: NOW + 500,
    });
    expect(plan(unknownState(1, 1, 'cant_tell'), contract('idempotent', true), NOW - 1500)).toMatchObject({
      kind: 'probe',
      probeNumber: 2,
    });
    expect(plan(unknownState(1, 2, 'cant_tell'), contract('idempotent', true), NOW - 1500)).toMatchObject({ kind: 'wait' }); // 2 s after probe 2
    expect(plan(unknownState(1, 3, 'cant_tell'), contract('idempotent', true), NOW - 60_000)).toMatchObject({
      kind: 'settle',
      settlement: 'needs_review',
    });
  });

  const sshContractOf = (effect: ToolContract['effect'], markers: boolean) =>
    ({
      name: 't',
      channel: 'ssh',
      effect,
      effectDeclared: true,
      target: { markers },
      probe: markers ? { kind: 'marker' } : null,
    }) as unknown as ToolContract;

  it.each(['none', 'idempotent', 'conditional', 'irreversible', 'remote_command'] as const)(
    'SSH with markers, effect %s → always settled by the marker, never re-sent blind',
    (effect) => {
      const ssh = sshContractOf(effect, true);
      expect(plan(unknownState(1, 0), ssh)).toEqual({ kind: 'probe', attempt: 1, probeNumber: 1 });
      expect(plan(unknownState(2, 0), ssh)).toEqual({ kind: 'probe', attempt: 2, probeNumber: 1 });
      expect(plan(unknownState(1, 1, 'applied'), ssh)).toMatchObject({ kind: 'settle', settlement: 'completed' });
      expect(plan(unknownState(1, 1, 'not_applied'), ssh)).toMatchObject({
        kind: 'settle',
        settlement: 'not_applied',
        reason: expect.stringContaining('never started'),
      });
      expect(plan(unknownState(3, 1, 'not_applied'), ssh)).toMatchObject({ kind: 'settle', settlement: 'needs_review' });
      expect(plan(unknownState(1, 1, 'cant_tell'), ssh, NOW - 500)).toMatchObject({ kind: 'wait', untilMs: NOW + 500 });
      expect(plan(unknownState(3, 3, 'cant_tell'), ssh, NOW - 60_000)).toMatchObject({ kind: 'settle', settlement: 'needs_review' });
    },
  );

  it.each(['none', 'idempotent', 'conditional', 'irreversible', 'remote_command'] as const)(
    'SSH without markers, effect %s → needs_review at once, never re-dispatched',
    (effect) => {
      const ssh = sshContractOf(effect, false);
      for (const attempt of [1, 2, 3]) {
        expect(plan(unknownState(attempt, 0), ssh)).toMatchObject({
          kind: 'settle',
          settlement: 'needs_review',
          reason: expect.stringContaining('markers: false'),
        });
      }
    },
  );

  it('remote_command over SSH → probe the marker; no marker → dispatch again (the host refuses a second start), within limits', () => {
    const ssh = (markers: boolean) => sshContractOf('remote_command', markers);
    expect(plan(unknownState(1, 0), ssh(true))).toEqual({ kind: 'probe', attempt: 1, probeNumber: 1 });
    expect(plan(unknownState(1, 1, 'not_applied'), ssh(true))).toMatchObject({
      kind: 'settle',
      settlement: 'not_applied',
      reason: expect.stringContaining('never started'),
    });
    expect(plan(unknownState(3, 1, 'not_applied'), ssh(true))).toMatchObject({ kind: 'settle', settlement: 'needs_review' });
    expect(plan(unknownState(1, 3, 'cant_tell'), ssh(true), NOW - 60_000)).toMatchObject({ kind: 'settle', settlement: 'needs_review' });
    // A host without the marker wrapper: nothing to read, so it is treated as irreversible.
    expect(plan(unknownState(1, 0), ssh(false))).toMatchObject({ kind: 'settle', settlement: 'needs_review' });
  });

  it('a tool whose contract is gone goes to a human; settled executions need nothing', () => {
    expect(plan(unknownState(1), null)).toMatchObject({ kind: 'settle', settlement: 'needs_review' });
    expect(plan({ status: 'completed' } as unknown as KnownExecutionState, contract('idempotent', true))).toEqual({ kind: 'nothing' });
  });
});

describe('planSettlement for MCP upstream tools', () => {
  const mcp = (effect: ToolContract['effect'], taskProbe: boolean): ToolContract =>
    ({
      name: 'm',
      channel: 'mcp',
      effect,
      effectDeclared: true,
      probe: taskProbe ? { kind: 'mcp_task' } : null,
    }) as unknown as ToolContract;
  const withTask = (probes = 0, taskId: string | null = 'tsk_1'): KnownExecutionState =>
    ({
      status: 'dispatched_unknown',
      unknown: { attempt: 1, probes, lastVerdict: probes > 0 ? 'cant_tell' : null, reason: 'r', detectedAt: '', upstreamTaskId: taskId },
    }) as unknown as KnownExecutionState;

  it('polls the task the upstream answered with (probe mcp_task), then a human once the probes are spent', () => {
    expect(plan(withTask(), mcp('irreversible', true))).toEqual({ kind: 'probe', attempt: 1, probeNumber: 1 });
    expect(plan(withTask(), mcp('conditional', true))).toEqual({ kind: 'probe', attempt: 1, probeNumber: 1 });
    expect(plan(withTask(3), mcp('irreversible', true))).toMatchObject({ kind: 'settle', settlement: 'needs_review' });
  });

  it('without a task id, or without the probe, settles by the effect class table alone', () => {
    expect(plan(withTask(0, null), mcp('irreversible', true))).toMatchObject({ kind: 'settle', settlement: 'needs_review' });
    expect(plan(withTask(0, null), mcp('conditional', true))).toMatchObject({ kind: 'settle', settlement: 'needs_review' });
    expect(plan(withTask(0, null), mcp('idempotent', true))).toMatchObject({ kind: 'settle', settlement: 'not_applied' });
    expect(plan(withTask(), mcp('irreversible', false))).toMatchObject({ kind: 'settle', settlement: 'needs_review' });
  });
});
