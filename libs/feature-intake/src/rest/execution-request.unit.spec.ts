import { DEFAULT_MAX_ARGUMENT_BYTES, MAX_ARGUMENT_DEPTH } from '../input-bounds';
import { parseExecutionRequest } from './execution-request';

const bounds = { maxArgumentBytes: DEFAULT_MAX_ARGUMENT_BYTES, defaultWaitMs: 1000, maxWaitMs: 5000 };
const valid = { tool: 'create_deployment', arguments: { project: 'web' } };

function violationsOf(body: unknown): { path: string; bound: string; message: string }[] {
  const parsed = parseExecutionRequest(body, bounds);
  if (parsed.ok) throw new Error(`expected a refusal of ${JSON.stringify(body)?.slice(0, 100)}`);
  return [...parsed.violations];
}

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
}

describe('parseExecutionRequest: the body of POST /v1/executions', () => {
  it('reads a full body, fills what is missing, and limits the wait', () => {
    expect(parseExecutionRequest({ ...valid, intent_scope: 'run:42', wait_ms: 0 }, bounds)).toEqual({
      ok: true,
      value: { tool: 'create_deployment', arguments: { project: 'web' }, intentScope: 'run:42', waitMs: 0, run: null, repeat: null },
    });
    expect(parseExecutionRequest({ tool: 'get_build_status' }, bounds)).toEqual({
      ok: true,
      value: { tool: 'get_build_status', arguments: {}, intentScope: null, waitMs: 1000, run: null, repeat: null },
    });
    expect(parseExecutionRequest({ ...valid, wait_ms: 999_999 }, bounds)).toMatchObject({ ok: true, value: { waitMs: 5000 } });
    expect(parseExecutionRequest({ ...valid, intent_scope: 's'.repeat(200) }, bounds)).toMatchObject({
      ok: true,
      value: { intentScope: 's'.repeat(200) },
    });
  });

  it.each([null, [], 'tool', 42, true])('refuses a body that is not an object (%p) at path $', (body) => {
    expect(violationsOf(body)).toEqual([{ path: '$', bound: 'object', message: expect.stringContaining('{"tool": …, "arguments": {…}}') }]);
  });

  it.each([
    ['$.tool', {}],
    ['$.tool', { tool: '' }],
    ['$.tool', { tool: 42 }],
    ['$.tool', { tool: 't'.repeat(129) }],
    ['$.arguments', { ...valid, arguments: [] }],
    ['$.arguments', { ...valid, arguments: null }],
    ['$.arguments', { ...valid, arguments: 'project=web' }],
    ['$.intent_scope', { ...valid, intent_scope: '' }],
    ['$.intent_scope', { ...valid, intent_scope: 's'.repeat(201) }],
    ['$.intent_scope', { ...valid, intent_scope: 42 }],
    ['$.wait_ms', { ...valid, wait_ms: -1 }],
    ['$.wait_ms', { ...valid, wait_ms: 1.5 }],
    ['$.wait_ms', { ...valid, wait_ms: '100' }],
  ])('names the path in the violation: %s (%j)', (path, body) => {
    expect(violationsOf(body).map((v) => v.path)).toEqual([path]);
  });

  it('reads a run and a deliberate repeat; refuses bad ones by path, and a run together with an intent scope', () => {
    const run = { id: 'campaign-12', trigger: 'ticket:OPS-812', attempt: 2 };
    expect(parseExecutionRequest({ ...valid, run, repeat: { reason: 'asked twice' } }, bounds)).toMatchObject({
      ok: true,
      value: { run, repeat: { reason: 'asked twice' } },
    });
    expect(parseExecutionRequest({ ...valid, run: { id: 'campaign-12' } }, bounds)).toMatchObject({
      ok: true,
      value: { run: { id: 'campaign-12', trigger: null, attempt: null } },
    });
    const paths = (body: Record<string, unknown>) => violationsOf(body).map((v) => v.path);
    expect(paths({ ...valid, run: { id: '../x', trigger: 'has space', attempt: 0, extra: 1 } })).toEqual([
      '$.run.extra',
      '$.run.id',
      '$.run.trigger',
      '$.run.attempt',
    ]);
    expect(paths({ ...valid, run: 'campaign-12' })).toEqual(['$.run']);
    expect(paths({ ...valid, repeat: { reason: '  ' } })).toEqual(['$.repeat']);
    expect(paths({ ...valid, repeat: { reason: 'x'.repeat(501) } })).toEqual(['$.repeat']);
    expect(paths({ ...valid, run: { id: 'c' }, intent_scope: 'run:42' })).toEqual(['$.intent_scope']);
  });

  it('names each unknown field and lists the known ones', () => {
    expect(violationsOf({ ...valid, args: {}, scope: 'x' })).toEqual([
      { path: '$.args', bound: 'known field', message: 'unknown field; expected tool, arguments, intent_scope, wait_ms, run, repeat' },
      { path: '$.scope', bound: 'known field', message: 'unknown field; expected tool, arguments, intent_scope, wait_ms, run, repeat' },
    ]);
  });

  it(`refuses arguments nested deeper than ${MAX_ARGUMENT_DEPTH} levels, even 20,000 deep, without overflowing the stack`, () => {
    expect(parseExecutionRequest({ ...valid, arguments: { a: nested(MAX_ARGUMENT_DEPTH - 2) } }, bounds).ok).toBe(true);
    expect(violationsOf({ ...valid, arguments: { a: nested(MAX_ARGUMENT_DEPTH) } })).toEqual([
      expect.objectContaining({ path: expect.stringMatching(/^\$\.arguments\.a(\[0\])+$/), bound: `depth <= ${MAX_ARGUMENT_DEPTH}` }),
    ]);
    expect(violationsOf({ ...valid, arguments: { a: nested(20_000) } })[0]).toMatchObject({ bound: expect.stringMatching(/^depth <= /) });
  });

  it('refuses NUL and unpaired surrogates in values and keys, anywhere in the body; a paired surrogate (emoji) passes', () => {
    expect(violationsOf({ ...valid, arguments: { notes: 'a\u0000b' } })).toEqual([
      expect.objectContaining({ path: '$.arguments.notes', bound: 'string-content' }),
    ]);
    expect(violationsOf({ ...valid, arguments: { notes: ['ok', 'x\uD800'] } })).toEqual([
      expect.objectContaining({ path: '$.arguments.notes[1]', bound: 'string-content' }),
    ]);
    expect(violationsOf({ ...valid, arguments: { 'k\uDC00': 1 } })[0]).toMatchObject({
      bound: 'string-content',
      message: expect.stringMatching(/^key /),
    });
    expect(violationsOf({ ...valid, intent_scope: 'run\u0000' })[0]).toMatchObject({ path: '$.intent_scope', bound: 'string-content' });
    expect(parseExecutionRequest({ ...valid, arguments: { notes: 'ship it \uD83D\uDE80' } }, bounds).ok).toBe(true);
  });

  it('refuses arguments above the configured byte ceiling, naming the bound and the setting', () => {
    const small = { ...bounds, maxArgumentBytes: 100 };
    const parsed = parseExecutionRequest({ ...valid, arguments: { notes: 'n'.repeat(200) } }, small);
    expect(parsed).toEqual({
      ok: false,
      violations: [
        expect.objectContaining({
          path: '$.arguments',
          bound: 'bytes <= 100',
          message: expect.stringContaining('ONCEPORT_MAX_ARGUMENT_BYTES'),
        }),
      ],
    });
  });

  it('never puts the offending value into a violation, and cuts odd keys in paths', () => {
    const violations = violationsOf({ ...valid, [`x${'y'.repeat(5000)}\u0000`]: 1 });
    expect(JSON.stringify(violations).length).toBeLessThan(400);
  });
});
