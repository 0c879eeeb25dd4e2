import { httpTool, parseOne, withField } from '../../test/contract-builders';
import { validateArguments } from './validate-arguments';

const contract = parseOne(
  withField(httpTool({ roles: { sku: 'identity', note: 'generated', qty: 'identity', tags: 'identity' } }), ['arguments'], {
    type: 'object',
    properties: {
      sku: { type: 'string', minLength: 1 },
      note: { type: 'string' },
      qty: { type: 'integer', minimum: 1, default: 1 },
      tags: { type: 'array', items: { type: 'string', format: 'email' } },
    },
    required: ['sku'],
  }),
);

describe('validateArguments', () => {
  it('accepts valid arguments and returns a copy with defaults filled in', () => {
    const args = { sku: 'A-1' };
    expect(validateArguments(contract, args)).toEqual({ ok: true, value: { sku: 'A-1', qty: 1 }, derived: {} });
    expect(args).toEqual({ sku: 'A-1' });
  });

  it('reports each failure with its JSON path', () => {
    const result = validateArguments(contract, { qty: 0, tags: ['ok@example.com', 'not-an-email'], colour: 'red' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => [i.path, i.keyword])).toEqual(
      expect.arrayContaining([
        ['$.sku', 'required'],
        ['$.colour', 'additionalProperties'],
        ['$.qty', 'minimum'],
        ['$.tags[1]', 'format'],
      ]),
    );
    expect(result.issues.find((i) => i.keyword === 'required')?.message).toBe('$.sku: is required');
  });

  it('refuses arguments that are not an object', () => {
    for (const value of [null, [], 'x', 3]) {
      expect(validateArguments(contract, value)).toEqual({
        ok: false,
        issues: [{ path: '$', keyword: 'type', message: '$: arguments must be a JSON object' }],
      });
    }
  });

  it('normalises before validating, so a declared equivalent spelling is accepted', () => {
    const emailContract = parseOne(
      httpTool({
        arguments: { type: 'object', properties: { to: { type: 'string', format: 'email' } }, required: ['to'] },
        roles: { to: { role: 'identity', normalize: ['email'] } },
      }),
    );
    expect(validateArguments(emailContract, { to: '  Ana@Example.COM ' })).toEqual({
      ok: true,
      value: { to: 'ana@example.com' },
      derived: {},
    });
  });

  it('still validates a contract that was copied after loading', () => {
    const copy = JSON.parse(JSON.stringify(contract)) as typeof contract;
    expect(validateArguments(copy, { sku: '' }).ok).toBe(false);
    expect(validateArguments(copy, { sku: 'x' }).ok).toBe(true);
  });
});
