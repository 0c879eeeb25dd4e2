import { parseToolContracts } from '@onceport/domain';
import { ackWaitMsFor, leaseMsFor } from './dispatch-timing';

const yaml = (timeout: string) => `
tools:
  - name: slow_tool
    description: A slow one.
    channel: http
    target: { origin: 'http://127.0.0.1:9', method: POST, path: /v1/payments, timeout: ${timeout} }
    arguments: { type: object, properties: {} }
    effect: idempotent
`;
const contract = (timeout: string) => {
  const [parsed] = parseToolContracts(yaml(timeout), 'slow.yaml');
  if (!parsed) throw new Error('no contract');
  return parsed;
};

describe('dispatch timing', () => {
  it('uses the configured lease unless the contract may take longer than it', () => {
    expect(leaseMsFor(contract('15s'), 60_000)).toBe(60_000);
    expect(leaseMsFor(contract('2m'), 60_000)).toBe(125_000);
    expect(leaseMsFor(undefined, 60_000)).toBe(60_000);
  });

  it('waits for an ack longer than the slowest HTTP contract', () => {
    expect(ackWaitMsFor([contract('15s'), contract('45s')])).toBe(75_000);
  });
});
