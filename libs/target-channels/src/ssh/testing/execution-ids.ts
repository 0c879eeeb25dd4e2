import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A fresh id in the execution id format (`exe_` + 26 Crockford base32 characters). */
export function newExecutionId(): string {
  return `exe_${[...randomBytes(26)].map((byte) => CROCKFORD[byte % 32]).join('')}`;
}
