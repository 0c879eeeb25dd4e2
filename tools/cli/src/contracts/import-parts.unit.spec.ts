import { parseToolContracts } from '@onceport/domain';
import { guessRole } from './guess-role';
import { contractToolName, importedContract } from './imported-contract';
import { splitCommandLine } from './import-source';
import { TASK_PROBE_SUGGESTION, renderContract } from './render-contract';
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

  it('suggests probe: { kind: mcp_task } as a comment only where the upstream says a tool runs as a task (never chosen)', () => {
    const tool = (name: string, execution?: Record<string, unknown>) => ({
      name,
      inputSchema: { type: 'object', properties: { key: { type: 'string' } } },
      ...(execution ? { execution } : {}),
    });
    const listing = {
      serverName: 'tasks',
      protocolVersion: '2025-11-25',
      skipped: [],
      tools: [
        tool('t_required', { taskSupport: 'required' }),
        tool('t_optional', { taskSupport: 'optional' }),
        tool('t_forbidden', { taskSupport: 'forbidden' }),
        tool('t_plain'),
        tool('t_odd', { taskSupport: 'sometimes' }),
      ],
    };
    const source = { transport: 'stdio' as const, command: 'node', args: ['server.js'], env: {} };
    const text = renderContract(importedContract(listing, source, {}), new Date(0));
    const suggested = (name: string) => {
      const lines = text.split('\n');
      const start = lines.findIndex((line) => line.trim() === `- name: ${name}`);
      const end = lines.findIndex((line, index) => index > start && /^\s*- name: /.test(line));
      return lines.slice(start, end < 0 ? undefined : end).filter((line) => line.trim() === `#${TASK_PROBE_SUGGESTION}`);
    };

    expect(suggested('t_required')).toHaveLength(1);
    expect(suggested('t_optional')).toHaveLength(1);
    for (const name of ['t_forbidden', 't_plain', 't_odd']) expect(suggested(name)).toEqual([]);
    expect(text).toMatch(/# suggestion: the upstream runs this tool only as a task \(taskSupport="required"\)/);
    expect(text).toMatch(/# suggestion: the upstream can run this tool as a task \(taskSupport="optional"\)/);
    // As written, nothing is chosen: no probe, every effect undeclared.
    for (const contract of parseToolContracts(text, 'imported.yaml'))
      expect(contract).toMatchObject({ probe: null, effectDeclared: false });
    // Uncommented in place, the suggestion is a valid declaration of the tool it sits under.
    const accepted = parseToolContracts(text.replaceAll(`#${TASK_PROBE_SUGGESTION}`, TASK_PROBE_SUGGESTION.trim()), 'imported.yaml');
    expect(Object.fromEntries(accepted.map((contract) => [contract.name, contract.probe]))).toEqual({
      t_required: { kind: 'mcp_task' },
      t_optional: { kind: 'mcp_task' },
      t_forbidden: null,
      t_plain: null,
      t_odd: null,
    });
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
