const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const MAX_TIME = 2 ** 48 - 1;
const RANDOM_BYTES = 10;

/**
 * A new execution id: `exe_` + a ULID (10 chars of millisecond time, 16 chars of randomness, Crockford
 * base-32). Sorting ids sorts executions by acceptance time (to the millisecond), which keeps the
 * event store's and the matcher's "most recent" cheap. Time and randomness come in as arguments so
 * the domain stays pure.
 *
 * @example newExecutionId(command.metadata.now.getTime(), crypto.randomBytes(10))
 */
export function newExecutionId(nowMs: number, randomBytes: Uint8Array): string {
  if (!Number.isInteger(nowMs) || nowMs < 0 || nowMs > MAX_TIME)
    throw new RangeError(`newExecutionId: time must be an integer in [0, 2^48), got ${nowMs}`);
  if (randomBytes.length < RANDOM_BYTES)
    throw new RangeError(`newExecutionId: needs ${RANDOM_BYTES} random bytes, got ${randomBytes.length}`);
  return `exe_${encodeTime(nowMs)}${encodeRandom(randomBytes.subarray(0, RANDOM_BYTES))}`;
}

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < 10; i += 1) {
    out = CROCKFORD.charAt(rest % 32) + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/** 80 bits → 16 characters, 5 bits at a time, most significant first. */
function encodeRandom(bytes: Uint8Array): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < 16; i += 1) {
    out = CROCKFORD.charAt(Number(value & 31n)) + out;
    value >>= 5n;
  }
  return out;
}
