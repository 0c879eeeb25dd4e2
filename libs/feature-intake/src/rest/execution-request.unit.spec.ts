import { parseExecutionRequest } from './execution-request';

const valid = { tool: 'create_deployment', arguments: { project: 'web' } };

function errorOf(body: unknown): string {
  const parsed = parseExecutionRequest(body);
  if (!('error' in parsed)) throw new Error(`expected an error for ${JSON.stringify(body)}`);
  return parsed.error;
}

describe('parseExecutionRequest: the body of POST /v1/executions', () => {
  it('reads a full body, and fills what is missing with null / {}', () => {
    expect(parseExecutionRequest({ ...valid, intent_scope: 'run:42', wait_ms: 0 })).toEqual({ ...valid, intent_scope: 'run:42', wait_ms: 0 });
    expect(parseExecutionRequest({ tool: 'get_build_status' })).toEqual({ tool: 'get_build_status', arguments: {}, intent_scope: null, wait_ms: null });
    expect(parseExecutionRequest({ ...valid, intent_scope: null, wait_ms: null })).toMatchObject({ intent_scope: null, wait_ms: null });
    expect(parseExecutionRequest({ ...valid, intent_scope: 's'.repeat(200) })).toMatchObject({ intent_scope: 's'.repeat(200) });
  });

  it.each([null, [], 'tool', 42, true])('refuses a body that is not an object (%p) and shows the expected shape', (body) => {
    expect(errorOf(body)).toMatch(/^the body must be a JSON object: \{"tool": …, "arguments": \{…\}\}$/);
  });

  it.each([
    ['tool', {}],
    ['tool', { tool: '' }],
    ['tool', { tool: 42 }],
    ['arguments', { ...valid, arguments: [] }],
    ['arguments', { ...valid, arguments: 'project=web' }],
    ['intent_scope', { ...valid, intent_scope: '' }],
    ['intent_scope', { ...valid, intent_scope: 's'.repeat(201) }],
    ['intent_scope', { ...valid, intent_scope: 42 }],
    ['wait_ms', { ...valid, wait_ms: -1 }],
    ['wait_ms', { ...valid, wait_ms: 1.5 }],
    ['wait_ms', { ...valid, wait_ms: '100' }],
  ])('names the field in error: %s (%j)', (field, body) => {
    expect(errorOf(body)).toMatch(new RegExp(`^${field}: `));
  });

  it('names unknown fields and lists the known ones', () => {
    expect(errorOf({ ...valid, args: {}, scope: 'x' })).toBe('unknown field(s): args, scope; expected tool, arguments, intent_scope, wait_ms');
  });
});
