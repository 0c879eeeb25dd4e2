/** A reason as a clause inside a longer sentence: without its own closing full stop. */
export function clause(text: string): string {
  return text.trim().replace(/[.\s]+$/, '');
}

/** Items joined for a sentence, at most `max` of them and then how many more: a sentence stays readable (and bounded) however many calls came. */
export function listed(items: readonly string[], separator: string, max = 10): string {
  const shown = items.slice(0, max).join(separator);
  return items.length > max ? `${shown}${separator}and ${items.length - max} more` : shown;
}
