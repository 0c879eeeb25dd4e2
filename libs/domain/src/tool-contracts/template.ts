import { ARGUMENT_NAME_PATTERN } from './defaults';

export type TemplatePart = { readonly literal: string } | { readonly argument: string };

export interface ParsedTemplate {
  readonly parts: readonly TemplatePart[];
  readonly placeholders: readonly string[];
  /** Human descriptions of malformed pieces; empty when the template is well formed. */
  readonly errors: readonly string[];
}

/**
 * Splits `"/v1/items/{item_id}"` or `"--name={name}"` into literals and `{argument}` placeholders.
 * `{{` and `}}` stand for literal braces (e.g. an awk program in argv). The dispatcher renders the
 * parts (URL-encoding for HTTP, one argv element per template element for SSH), never by string
 * substitution of the whole template.
 */
export function parseTemplate(template: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  const errors: string[] = [];
  let literal = '';
  let i = 0;
  while (i < template.length) {
    const char = template[i] as string;
    const next = template[i + 1];
    if ((char === '{' && next === '{') || (char === '}' && next === '}')) {
      literal += char;
      i += 2;
    } else if (char === '{') {
      const end = template.indexOf('}', i);
      const name = end === -1 ? template.slice(i + 1) : template.slice(i + 1, end);
      if (end === -1) errors.push(`an unclosed "{" at position ${i}`);
      else if (!ARGUMENT_NAME_PATTERN.test(name)) errors.push(`"{${name}}" is not a placeholder (write {{ and }} for literal braces)`);
      else {
        if (literal) parts.push({ literal });
        literal = '';
        parts.push({ argument: name });
      }
      i = end === -1 ? template.length : end + 1;
    } else if (char === '}') {
      errors.push(`a stray "}" at position ${i} (write }} for a literal brace)`);
      i += 1;
    } else {
      literal += char;
      i += 1;
    }
  }
  if (literal) parts.push({ literal });
  const placeholders = [...new Set(parts.flatMap((p) => ('argument' in p ? [p.argument] : [])))];
  return { parts, placeholders, errors };
}
