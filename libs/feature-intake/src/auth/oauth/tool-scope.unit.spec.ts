import { tokenAllowsTool, toolScope, toolsOfScopes, toolsOutsideTokenScope } from './tool-scope';

describe('tool scopes: a token narrowing what its actor may call', () => {
  it('narrows to the tools its onceport:tool: scopes name; other scopes do not narrow', () => {
    expect(toolsOfScopes(['onceport', 'onceport:tool:get_build_status', 'onceport:tool:send_email'])).toEqual(
      new Set(['get_build_status', 'send_email']),
    );
    expect(toolsOfScopes(['onceport', 'openid'])).toBeUndefined();
    expect(toolsOfScopes([])).toBeUndefined();
    expect(toolScope('send_email')).toBe('onceport:tool:send_email');
  });

  it('lets an API key or an un-narrowed token call anything the actor may; a narrowed one only its tools', () => {
    expect(tokenAllowsTool({ id: 'agent:a' }, 'charge_payment')).toBe(true);
    const narrowed = { id: 'agent:a', tokenTools: new Set(['get_build_status']) };
    expect(tokenAllowsTool(narrowed, 'get_build_status')).toBe(true);
    expect(tokenAllowsTool(narrowed, 'charge_payment')).toBe(false);
  });

  it('finds the tools/call names of a JSON-RPC body or batch outside the scope, each once, sparing the always-allowed', () => {
    const narrowed = { id: 'agent:a', tokenTools: new Set(['get_build_status']) };
    const call = (name: unknown, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
    expect(toolsOutsideTokenScope(narrowed, call('charge_payment'))).toEqual(['charge_payment']);
    expect(
      toolsOutsideTokenScope(
        narrowed,
        [call('charge_payment'), call('get_build_status', 2), call('charge_payment', 3), call('onceport_execution_status', 4), call(42, 5)],
        ['onceport_execution_status'],
      ),
    ).toEqual(['charge_payment']);
    expect(toolsOutsideTokenScope(narrowed, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual([]);
    expect(toolsOutsideTokenScope({ id: 'agent:a' }, call('charge_payment'))).toEqual([]);
    expect(toolsOutsideTokenScope(narrowed, undefined)).toEqual([]);
  });
});
