import { guessRole } from './guess-role';
import { contractToolName } from './imported-contract';
import { splitCommandLine } from './import-source';
import { schemaDiff, sameJson } from './schema-diff';

describe('contracts import: the pure parts', () => {
  it.each([
    ['path', { type: 'string' }, 'identity', 'a path'],
    ['customer_id', { type: 'string' }, 'identity', 'an id'],
    ['recipient', { type: 'string', format: 'email' }, 'identity', 'an e-mail address'],
    ['callbackUrl', { type: 'string' }, 'identity', 'a URL'],
    ['environment', { type: 'string', enum: ['staging', 'production'] }, 'identity', 'one of fixed values'],
    ['amount_cents', { type: 'integer' }, 'identity', 'a number (amounts, counts and sizes change the call)'],
    ['edits', { type: 'array', items: { type: 'object' } }, 'identity', 'structured data: all of it identifies the call'],
    ['content', { type: 'string' }, 'generated', 'looks like free-form text'],
    ['commitMessage', { type: 'string' }, 'generated', 'looks like free-form text'],
    ['release_notes', { type: 'string' }, 'generated', 'looks like free-form text'],
    ['topic', { type: 'string' }, 'identity', 'a value that does not look like free-form text'],
  ])('guesses %s (%j) as %s: %s', (name, schema, role, why) => {
    expect(guessRole(name, schema)).toEqual({ role, why });
  });

  it('makes contract tool names within the rules, prefixed and unique', () => {
    const taken = new Set<string>(['fs_read']);
    expect(contractToolName('read', 'fs_', taken)).toBe('fs_read_2');
    expect(contractToolName('files.read', '', taken)).toBe('files_read');
    expect(contractToolName('x'.repeat(128), '', taken)).toHaveLength(64);
    expect(contractToolName('x'.repeat(128), '', taken)).toMatch(/^x{62}_2$/);
  });

  it('splits the command line at --, taking --from-mcp right before it as the stdio marker', () => {
    expect(splitCommandLine(['--out', 'f.yaml', '--from-mcp', '--', 'npx', '-y', 'server', '--out', 'x'])).toEqual({
      options: ['--out', 'f.yaml'],
      command: ['npx', '-y', 'server', '--out', 'x'],
    });
    expect(splitCommandLine(['--from-mcp', 'http://h/mcp'])).toEqual({ options: ['--from-mcp', 'http://h/mcp'], command: null });
  });

  it('diffs schemas in words, ignoring key order', () => {
    const before = { type: 'object', properties: { path: { type: 'string' }, mode: { type: 'string' } }, required: ['path'] };
    const after = { required: ['path', 'content'], type: 'object', properties: { path: { type: 'number' }, content: { type: 'string' } } };

    expect(
      sameJson(before, { required: ['path'], properties: { mode: { type: 'string' }, path: { type: 'string' } }, type: 'object' }),
    ).toBe(true);
    expect(schemaDiff(before, after)).toEqual([
      '~ properties.path.type: "string" → "number"',
      '- properties.mode: {"type":"string"}',
      '+ properties.content: {"type":"string"}',
      '+ required[]: "content"',
    ]);
  });
});
