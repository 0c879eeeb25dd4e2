import { z } from 'zod';
import { DURATION_EXPECTED, DURATION_PATTERN } from './duration';

// Building blocks of the YAML schemas (raw-tool-contract.schema.ts, raw-mcp.schema.ts). Every
// message is the "expected" half of an issue; the "got" half is read from the document.

/** Only for type mismatches: other issue kinds keep their own, more precise wording. */
export const whenNot = (expected: string) => (issue: { code: string }) => (issue.code === 'invalid_type' ? expected : undefined);
export const text = (expected: string) => z.string({ error: expected }).trim().min(1, { error: expected });
export const matching = (pattern: RegExp, expected: string) => z.string({ error: expected }).regex(pattern, { error: expected });
export const upperCased = (value: unknown): unknown => (typeof value === 'string' ? value.toUpperCase() : value);

export const Duration = matching(DURATION_PATTERN, DURATION_EXPECTED);
export const ByteCount = z
  .number({ error: 'a whole number of bytes, e.g. 1048576' })
  .int({ error: 'a whole number of bytes, e.g. 1048576' })
  .positive({ error: 'a number of bytes greater than 0' });
