/**
 * One argv element as a POSIX-sh single-quoted word: inside single quotes every byte is literal
 * except `'` itself, which is closed, escaped and reopened (`'\''`). NUL cannot be part of an argv
 * element at all, so a value holding one is refused by the caller before it gets here.
 */
export function shellQuote(value: string): string {
  if (value.includes('\0')) throw new Error('an argv element cannot contain a NUL character');
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
