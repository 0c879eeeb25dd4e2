import { MAX_BODY_DEPTH, MAX_INTENT_SCOPE_CHARS } from '../input-bounds';
import { refusedMcpBody } from './mcp-input-check';

const bounds = { maxArgumentBytes: 1024, defaultWaitMs: 0, maxWaitMs: 1000 };
const call = (params: unknown, id: unknown = 7) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });
const deploy = { name: 'create_deployment', arguments: { project: 'web', environment: 'staging', version: '1' } };

function violations(body: unknown): { path: string; bound: string }[] {
  const refused = refusedMcpBody(body, bounds);
  if (!refused) throw new Error('expected a refusal');
  const error = (refused.body as { error: { code: number; data: { violations: { path: string; bound: string }[] } } }).error;
  expect(error.code).toBe(-32602);
  return error.data.violations;
}

describe('refusedMcpBody: an /mcp POST against every bound, before the SDK sees it', () => {
  it('lets a well-formed call, other methods and non-JSON-RPC bodies through (the latter are -32600 elsewhere)', () => {
    expect(refusedMcpBody(call({ ...deploy, _meta: { 'onceport/intent_scope': 'run:1', 'onceport/wait_ms': 10 } }), bounds)).toBeNull();
    expect(refusedMcpBody({ jsonrpc: '2.0', id: 'a', method: 'tools/list' }, bounds)).toBeNull();
    expect(refusedMcpBody({ hello: 'world' }, bounds)).toBeNull();
    expect(refusedMcpBody([call(deploy, 1), call(deploy, 2)], bounds)).toBeNull();
  });

  it("answers a call it can name with HTTP 200 and the call's id, else 400 with id null", () => {
    expect(refusedMcpBody(call({ ...deploy, arguments: [] }, 'req-1'), bounds)).toMatchObject({
      status: 200,
      body: { id: 'req-1', error: { code: -32602 } },
    });
    expect(refusedMcpBody(call(deploy, 'x'.repeat(1000)), bounds)).toMatchObject({ status: 400, body: { id: null } });
  });

  it.each([
    [
      'a long intent scope in _meta',
      call({ ...deploy, _meta: { 'onceport/intent_scope': 's'.repeat(MAX_INTENT_SCOPE_CHARS + 1) } }),
      '$.params._meta["onceport/intent_scope"]',
    ],
    [
      'a non-string intent scope',
      call({ ...deploy, _meta: { 'onceport/intent_scope': { a: 1 } } }),
      '$.params._meta["onceport/intent_scope"]',
    ],
    ['a negative wait', call({ ...deploy, _meta: { 'onceport/wait_ms': -5 } }), '$.params._meta["onceport/wait_ms"]'],
    ['arguments as an array', call({ ...deploy, arguments: [1] }), '$.params.arguments'],
    ['arguments as a string', call({ ...deploy, arguments: 'x' }), '$.params.arguments'],
    ['arguments as null', call({ ...deploy, arguments: null }), '$.params.arguments'],
    ['arguments above the byte ceiling', call({ ...deploy, arguments: { notes: 'n'.repeat(2000) } }), '$.params.arguments'],
    ['a tool name that is no string', call({ ...deploy, name: 5 }), '$.params.name'],
    ['params that are an array', call([1, 2]), '$.params'],
    ['params that are a string, on any method', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: 'x' }, '$.params'],
    ['_meta that is no object', call({ ...deploy, _meta: 'x' }), '$.params._meta'],
    ['a huge JSON-RPC id', call(deploy, 'i'.repeat(129)), '$.id'],
    ['a fractional JSON-RPC id', call(deploy, 1.5), '$.id'],
    ['an id holding a newline', call(deploy, 'a\nb'), '$.id'],
    ['NUL in an argument', call({ ...deploy, arguments: { project: 'w\u0000b' } }), '$.params.arguments.project'],
    [
      'a lone surrogate in an initialize field',
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: '\uD83D' } } },
      '$.params.clientInfo.name',
    ],
    ['a bad call inside a batch', [call(deploy, 1), call({ ...deploy, arguments: [] }, 2)], '$[1].params.arguments'],
  ])('refuses %s, naming %s', (_what, body, path) => {
    expect(violations(body).map((v) => v.path)).toContain(path);
  });

  it(`refuses a body nested past ${MAX_BODY_DEPTH} levels, 20,000 deep included, without recursion`, () => {
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i += 1) deep = [deep];
    expect(violations(call({ ...deploy, arguments: { deep } }))).toEqual([
      expect.objectContaining({ bound: `depth <= ${MAX_BODY_DEPTH}` }),
    ]);
  });
});
