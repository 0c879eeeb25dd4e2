import { invalidJsonRpc, jsonRpcError } from './json-rpc-shape';

describe('invalidJsonRpc: why valid JSON is not JSON-RPC (answered with -32600)', () => {
  it.each([
    ['a request', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    ['a request with a string id and params', { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'x' } }],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['a result', { jsonrpc: '2.0', id: 1, result: {} }],
    ['an error', { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x' } }],
    [
      'a batch',
      [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
      ],
    ],
  ])('accepts %s', (_name, body) => {
    expect(invalidJsonRpc(body)).toBeNull();
  });

  it('refuses an empty batch, saying so', () => {
    expect(invalidJsonRpc([])).toBe('an empty batch');
  });

  it.each([
    ['an object of another shape', { hello: 'world' }],
    ['another JSON-RPC version', { jsonrpc: '1.0', id: 1, method: 'ping' }],
    ['a method that is not a string', { jsonrpc: '2.0', id: 1, method: 5 }],
    ['an id that is an object', { jsonrpc: '2.0', id: {}, method: 'ping' }],
    ['a number', 42],
    ['a string', 'tools/list'],
    ['null', null],
  ])('refuses %s as "not a JSON-RPC 2.0 message", with the first issue', (_name, body) => {
    expect(invalidJsonRpc(body)).toMatch(/^not a JSON-RPC 2\.0 message \(.+: .+\)$/);
  });

  it('names the position of the bad message in a batch', () => {
    const reason = invalidJsonRpc([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { id: 2 }]);
    expect(reason).toMatch(/^message 1: not a JSON-RPC 2\.0 message/);
  });
});

describe('jsonRpcError', () => {
  it('is a JSON-RPC 2.0 error response, id null unless given, data only when given', () => {
    expect(jsonRpcError(-32600, 'Invalid Request: an empty batch')).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: an empty batch' },
    });
    expect(jsonRpcError(-32602, 'bad', 7, { path: '$.x' })).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: 'bad', data: { path: '$.x' } },
    });
  });
});
