import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runOnceport } from '../testing/run-cli-in-process';
import { commentsOfTool, listedDirectly, parseImported } from './testing/imported-file';

const ROOT = join(__dirname, '../../../..');
const EXAMPLES = join(__dirname, '../../examples');
const server = (name: string) => join('node_modules/@modelcontextprotocol', name, 'dist/index.js');

/**
 * The two examples in tools/cli/examples, as the command wrote them (the README says how); each
 * run here must produce them again, the date aside, so they never drift from the real servers.
 */
const CASES = [
  {
    example: 'filesystem.yaml',
    options: ['--name', 'files'],
    command: ['node', server('server-filesystem'), '/tmp/onceport-files'],
  },
  {
    example: 'everything.yaml',
    options: ['--name', 'everything'],
    command: ['node', server('server-everything'), 'stdio'],
  },
] as const;

const withoutDate = (text: string) => text.replace(/ on \d{4}-\d\d-\d\dT[\d:.]+Z by /, ' on <date> by ');

describe('contracts import against the real MCP servers from npm, over stdio', () => {
  const cwd = process.cwd();
  beforeAll(() => {
    mkdirSync('/tmp/onceport-files', { recursive: true });
    // The command lines name the servers relative to the repository, as the examples do.
    process.chdir(ROOT);
  });
  afterAll(() => process.chdir(cwd));

  it.each(CASES)('$example: every tool, its schema as is, roles guessed, effect undeclared with the hints shown', async (spec) => {
    const run = await runOnceport(['contracts', 'import', ...spec.options, '--from-mcp', '--', ...spec.command]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });

    const file = parseImported(run.stdout);
    const upstreamName = spec.options[1];
    expect(file.upstreams).toEqual([{ name: upstreamName, transport: 'stdio', command: 'node', args: spec.command.slice(1) }]);
    const listed = await listedDirectly(process.execPath, spec.command.slice(1));
    expect(file.tools.map((tool) => tool.target.tool)).toEqual(listed.map((tool) => tool.name));
    for (const [index, tool] of file.tools.entries()) {
      const upstream = listed[index] as {
        name: string;
        inputSchema: { properties?: object };
        annotations?: Record<string, unknown>;
        execution?: { taskSupport?: string };
      };
      expect(tool).toMatchObject({
        channel: 'mcp',
        target: { upstream: upstreamName, tool: upstream.name },
        arguments: upstream.inputSchema,
      });
      expect(tool).not.toHaveProperty('effect');
      expect(Object.keys(tool.roles ?? {})).toEqual(Object.keys(upstream.inputSchema.properties ?? {}));
      const comments = commentsOfTool(run.stdout, tool.name);
      expect(comments.filter((line) => line.includes('# guess: '))).toHaveLength(Object.keys(tool.roles ?? {}).length);
      const effect = comments.find((line) => line.includes('# effect: undeclared. Upstream hints (shown, never trusted): '));
      expect(effect).toBeDefined();
      for (const [hint, value] of Object.entries(upstream.annotations ?? {}))
        if (hint.endsWith('Hint')) expect(effect).toContain(`${hint}=${JSON.stringify(value)}`);
      // A tool the server runs as a task gets the task probe suggested, commented out: never chosen.
      const runsAsTask = ['optional', 'required'].includes(upstream.execution?.taskSupport ?? '');
      expect(comments.filter((line) => line.trim() === '# probe: { kind: mcp_task }')).toHaveLength(runsAsTask ? 1 : 0);
      expect(tool).not.toHaveProperty('probe');
    }
    expect(withoutDate(run.stdout)).toBe(withoutDate(readFileSync(join(EXAMPLES, spec.example), 'utf8')));
  });

  it('guesses the filesystem tools the way a reviewer would start: paths identity, file content generated', async () => {
    const file = parseImported(readFileSync(join(EXAMPLES, 'filesystem.yaml'), 'utf8'));
    const roles = (name: string) => file.tools.find((tool) => tool.name === name)?.roles;

    expect(roles('write_file')).toEqual({ path: 'identity', content: 'generated' });
    expect(roles('move_file')).toEqual({ source: 'identity', destination: 'identity' });
  });

  it('suggests the task probe for server-everything’s simulate-research-query, the tool it runs only as a task', () => {
    const text = readFileSync(join(EXAMPLES, 'everything.yaml'), 'utf8');
    expect(commentsOfTool(text, 'simulate-research-query')).toEqual(
      expect.arrayContaining([
        expect.stringContaining('# suggestion: the upstream runs this tool only as a task (taskSupport="required")'),
        '    # probe: { kind: mcp_task }',
      ]),
    );
  });
});
