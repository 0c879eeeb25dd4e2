/** A reason as a clause inside a longer sentence: without its own closing full stop. */
export function clause(text: string): string {
  return text.trim().replace(/[.\s]+$/, '');
}
