import type { ToolContract } from '@onceport/domain';
import { OTHER_LABEL, targetLabel, toolLabel } from './metric-labels';

describe('metric labels come from the loaded contracts, never from a request', () => {
  const contracts = new Map([['send_email', {}]]);

  it('a tool no loaded contract names is "other"', () => {
    expect(toolLabel(contracts, 'send_email')).toBe('send_email');
    expect(toolLabel(contracts, 'launch_rocket')).toBe(OTHER_LABEL);
  });

  it("a target is the contract's origin, host or upstream name", () => {
    const http = { channel: 'http', target: { origin: 'https://api.example.com', path: '/v1/{id}' } } as unknown as ToolContract;
    const ssh = { channel: 'ssh', target: { host: 'db1.internal', port: 2222 } } as unknown as ToolContract;
    const ssh22 = { channel: 'ssh', target: { host: 'db1.internal', port: 22 } } as unknown as ToolContract;
    const mcp = { channel: 'mcp', target: { upstream: { name: 'filesystem', url: 'https://x/mcp' } } } as unknown as ToolContract;
    expect([targetLabel(http), targetLabel(ssh), targetLabel(ssh22), targetLabel(mcp), targetLabel(undefined)]).toEqual([
      'https://api.example.com',
      'db1.internal:2222',
      'db1.internal',
      'filesystem',
      OTHER_LABEL,
    ]);
  });
});
