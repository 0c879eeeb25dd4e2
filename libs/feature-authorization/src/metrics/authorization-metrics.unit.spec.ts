import type { ExecutionEventEnvelope } from '@onceport/contracts';
import type { ExecutionState } from '@onceport/domain';
import { register } from 'prom-client';
import { countApprovalEvents } from './authorization-metrics';

const event = (type: string, data: Record<string, unknown>): ExecutionEventEnvelope =>
  ({ type, data }) as unknown as ExecutionEventEnvelope;
const stateOf = (tool: string): ExecutionState => ({ status: 'authorized', facts: { tool } }) as unknown as ExecutionState;
const requested = event('ApprovalRequested', { approvalId: 'apr_1', kind: 'per_use', requestedAt: '2026-01-01T10:00:00.000Z' });

async function sample(name: string, labels: Record<string, string>): Promise<number> {
  const metric = await register.getSingleMetric(name)?.get();
  return (
    metric?.values.find(
      (v) =>
        Object.entries(labels).every(([key, value]) => v.labels[key] === value) &&
        ('metricName' in v ? v.metricName === `${name}_sum` || v.metricName === name : true),
    )?.value ?? 0
  );
}

describe('approval metrics, from what one append wrote', () => {
  const contracts = new Map([['charge_payment', {}]]);

  it('a request counts by kind; its grant counts and observes the wait since the request', async () => {
    countApprovalEvents(contracts, { state: stateOf('charge_payment'), events: [requested], appended: [requested] });
    const granted = event('ApprovalGranted', { approvalId: 'apr_1', decidedAt: '2026-01-01T10:01:30.000Z' });
    countApprovalEvents(contracts, { state: stateOf('charge_payment'), events: [requested, granted], appended: [granted] });
    expect(await sample('onceport_approvals_requested_total', { tool: 'charge_payment', kind: 'per_use' })).toBe(1);
    expect(await sample('onceport_approvals_decided_total', { tool: 'charge_payment', decision: 'granted' })).toBe(1);
    expect(await sample('onceport_approval_wait_seconds', { tool: 'charge_payment', decision: 'granted' })).toBe(90);
  });

  it('an expiry is a decision too; a tool outside the contracts is "other"', async () => {
    const expired = event('ExecutionDenied', { code: 'approval_expired', deniedAt: '2026-01-01T11:00:00.000Z' });
    countApprovalEvents(contracts, { state: stateOf('gone_tool'), events: [requested, expired], appended: [expired] });
    expect(await sample('onceport_approvals_decided_total', { tool: 'other', decision: 'expired' })).toBe(1);
    expect(await sample('onceport_approval_wait_seconds', { tool: 'other', decision: 'expired' })).toBe(3600);
  });
});
