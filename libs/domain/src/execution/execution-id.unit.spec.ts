import { ExecutionId } from '@onceport/contracts';
import fc from 'fast-check';
import { newExecutionId } from './execution-id';

describe('newExecutionId', () => {
  it('encodes time and randomness as exe_ + 26 Crockford base-32 characters', () => {
    const id = newExecutionId(0x0190f5d26c1e, new Uint8Array([0xff, 0, 1, 2, 3, 4, 5, 6, 7, 8]));
    expect(id).toMatch(/^exe_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(id.slice(4, 14)).toBe('01J3TX4V0Y');
    expect(newExecutionId(0, new Uint8Array(10))).toBe(`exe_${'0'.repeat(26)}`);
    expect(newExecutionId(2 ** 48 - 1, new Uint8Array(10).fill(255))).toBe('exe_7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
  });

  it('is always a valid ExecutionId, and ids sort by time', () => {
    const bytes = fc.uint8Array({ minLength: 10, maxLength: 10 });
    const time = fc.integer({ min: 0, max: 2 ** 48 - 1 });
    fc.assert(
      fc.property(time, time, bytes, bytes, (t1, t2, r1, r2) => {
        const a = newExecutionId(t1, r1);
        const b = newExecutionId(t2, r2);
        expect(ExecutionId.safeParse(a).success).toBe(true);
        if (t1 < t2) expect(a < b).toBe(true);
      }),
    );
  });

  it('refuses time out of range and too little randomness', () => {
    expect(() => newExecutionId(-1, new Uint8Array(10))).toThrow(RangeError);
    expect(() => newExecutionId(2 ** 48, new Uint8Array(10))).toThrow(RangeError);
    expect(() => newExecutionId(1.5, new Uint8Array(10))).toThrow(RangeError);
    expect(() => newExecutionId(1, new Uint8Array(9))).toThrow('needs 10 random bytes');
  });
});
