import fc from 'fast-check';
import { NonJsonValueError, canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts keys at every level and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: null, y: true }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":true,"z":null}]},"b":1}');
  });

  it('writes numbers in one form', () => {
    expect(canonicalJson([1.0, -0, 1e21, 0.1 + 0.2, 100])).toBe('[1,0,1e+21,0.30000000000000004,100]');
  });

  it('sorts by UTF-16 code units, as RFC 8785 does', () => {
    expect(canonicalJson({ é: 1, z: 2, Z: 3, '10': 4, '9': 5 })).toBe('{"10":4,"9":5,"Z":3,"z":2,"é":1}');
  });

  it.each([
    ['undefined', { a: undefined }, '$.a: got undefined'],
    ['NaN', [1, Number.NaN], '$[1]: got NaN'],
    ['Infinity', { n: Infinity }, '$.n: got Infinity'],
    ['a function', { f: () => 1 }, '$.f: got a function'],
    ['a bigint', { n: 1n }, '$.n: got bigint'],
    ['a symbol', Symbol('x'), '$: got symbol'],
    ['a Date', { at: new Date(0) }, '$.at: got an instance of Date'],
    ['a Map', new Map(), '$: got an instance of Map'],
    ['a sparse array', Object.assign(new Array<number>(3), { 0: 1, 2: 3 }), '$[1]: got a hole in a sparse array'],
  ])('refuses %s with a typed error naming the path', (_label, value, message) => {
    expect(() => canonicalJson(value)).toThrow(NonJsonValueError);
    try {
      canonicalJson(value);
    } catch (error) {
      expect((error as NonJsonValueError).code).toBe('NON_JSON_VALUE');
      expect((error as NonJsonValueError).message).toContain(message);
    }
  });

  it('refuses cycles but accepts a value shared by two keys', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow('$.self: got a circular reference');
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it('leaves out undefined members only when asked (the event store hashes what jsonb keeps)', () => {
    expect(canonicalJson({ b: undefined, a: { d: undefined, c: 1 } }, { omitUndefinedMembers: true })).toBe('{"a":{"c":1}}');
    expect(() => canonicalJson([1, undefined], { omitUndefinedMembers: true })).toThrow('$[1]: got undefined');
  });

  it('round-trips any JSON value and is a fixed point', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
