import { ExecutionId, Fingerprint } from './primitives';

describe('primitives', () => {
  it('accepts a well-formed execution id and refuses others', () => {
    expect(ExecutionId.safeParse('exe_01J4K8J7DX7V9Q2M3N4P5R6S7T').success).toBe(true);
    expect(ExecutionId.safeParse('exe_01J4K8J7DX7V9Q2M3N4P5R6S7U').success).toBe(false);
    expect(ExecutionId.safeParse('01J4K8J7DX7V9Q2M3N4P5R6S7T').success).toBe(false);
  });

  it('accepts a fingerprint with a key id', () => {
    expect(Fingerprint.safeParse(`hmac-sha256:k1:${'a'.repeat(64)}`).success).toBe(true);
    expect(Fingerprint.safeParse(`sha256:${'a'.repeat(64)}`).success).toBe(false);
  });
});
