import { batchOverCap } from './batch-cap';

const call = (id: number): object => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x', arguments: {} } });

describe('batch cap', () => {
  it('given a batch of exactly the bound, when checked, then it passes', () => {
    expect(batchOverCap([call(1), call(2), call(3)], 3)).toBeNull();
  });

  it('given one tools/call over the bound, when checked, then the reason names the bound, the variable and the count', () => {
    expect(batchOverCap([call(1), call(2), call(3), call(4)], 3)).toBe(
      'a batch carries at most 3 tools/call requests (ONCEPORT_MAX_BATCH_CALLS); this one has 4: send them in smaller batches or one by one',
    );
  });

  it('given other methods and notifications beside the calls, when checked, then only tools/call counts', () => {
    const others = [{ jsonrpc: '2.0', id: 9, method: 'tools/list' }, { jsonrpc: '2.0', method: 'notifications/initialized' }, 'junk', null];
    expect(batchOverCap([...others, call(1), call(2)], 2)).toBeNull();
  });

  it('given a single message, when checked, then it is not a batch', () => {
    expect(batchOverCap(call(1), 0)).toBeNull();
  });
});
