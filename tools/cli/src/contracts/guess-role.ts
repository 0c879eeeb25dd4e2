import type { ArgumentRole } from '@onceport/contracts';

/** A role for an argument, guessed from its name and schema, with the reason shown next to it. */
export interface RoleGuess {
  readonly role: ArgumentRole;
  readonly why: string;
}

/** Words that name model-written text: a retry may word it differently and still mean the same call. */
const FREE_TEXT_WORDS = new Set([
  'body',
  'content',
  'contents',
  'message',
  'messages',
  'description',
  'text',
  'note',
  'notes',
  'comment',
  'comments',
  'summary',
  'prompt',
  'reason',
  'explanation',
  'subject',
  'markdown',
  'html',
  'caption',
  'reply',
  'answer',
  'instructions',
]);

/**
 * Identity unless the argument looks like free-form text. The guess errs towards identity: a value
 * wrongly taken as identity only makes two reworded retries two executions (review catches it), while a
 * value wrongly taken as generated would let a different call attach to an earlier one.
 */
export function guessRole(name: string, schema: unknown): RoleGuess {
  const node = (typeof schema === 'object' && schema !== null ? schema : {}) as Record<string, unknown>;
  const words = wordsOf(name);
  const type = typeof node['type'] === 'string' ? node['type'] : Array.isArray(node['type']) ? 'mixed' : null;
  const format = typeof node['format'] === 'string' ? node['format'] : null;

  if (Array.isArray(node['enum']) || 'const' in node) return { role: 'identity', why: 'one of fixed values' };
  if (format === 'email' || words.includes('email')) return { role: 'identity', why: 'an e-mail address' };
  if (format === 'uri' || format === 'url' || words.some((w) => w === 'url' || w === 'uri')) return { role: 'identity', why: 'a URL' };
  if (words.some((w) => w === 'id' || w === 'ids' || w === 'key' || w === 'uuid')) return { role: 'identity', why: 'an id' };
  if (words.some((w) => ['path', 'paths', 'file', 'files', 'dir', 'directory', 'source', 'destination'].includes(w)))
    return { role: 'identity', why: 'a path' };
  if (words.some((w) => w === 'name' || w === 'names')) return { role: 'identity', why: 'a name' };
  if (type === 'integer' || type === 'number') return { role: 'identity', why: 'a number (amounts, counts and sizes change the call)' };
  if (type === 'boolean') return { role: 'identity', why: 'a flag that changes what is done' };
  if (type === 'array' || type === 'object') return { role: 'identity', why: 'structured data: all of it identifies the call' };
  if (words.some((w) => FREE_TEXT_WORDS.has(w))) return { role: 'generated', why: 'looks like free-form text' };
  return { role: 'identity', why: 'a value that does not look like free-form text' };
}

/** `campaign_id`, `campaignId`, `new-text` → their lower-case words. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}
