import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseToolContracts } from '@onceport/domain';
import { McpChannel } from '@onceport/target-channels';
import { reportUpstreamDrift } from './report-upstream-drift';

const FILESYSTEM_SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

/** The start-up check against the real @modelcontextprotocol/server-filesystem over stdio. */
describe('reportUpstreamDrift: contracts that no longer match their upstream are named at start', () => {
  let root: string;
  let channel: McpChannel;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'onceport-drift-'));
    channel = new McpChannel();
  });
  afterAll(async () => {
    await channel.close();
    rmSync(root, { recursive: true, force: true });
  });

  const contracts = () =>
    parseToolContracts(
      `
upstreams:
  - name: files
    transport: stdio
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(root)}]
    connect_timeout: 20s
tools:
  - name: write_file
    description: Matches the server.
    channel: mcp
    target: { upstream: files }
    arguments: { type: object, properties: { path: { type: string }, content: { type: string } }, required: [path, content] }
    roles: { path: identity, content: generated }
    effect: irreversible
  - name: write_text
    description: Declares an argument the server does not take.
    channel: mcp
    target: { upstream: files, tool: write_file }
    arguments: { type: object, properties: { path: { type: string }, text: { type: string } }, required: [path, text] }
    roles: { path: identity, text: generated }
    effect: irreversible
  - name: shred_file
    description: A tool the server never had.
    channel: mcp
    target: { upstream: files }
    arguments: { type: object, properties: { path: { type: string } }, required: [path] }
    roles: { path: identity }
`,
      'drift.yaml',
    );

  it('names each drifted contract and its problem; a matching one is not mentioned', async () => {
    const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
    await reportUpstreamDrift(contracts(), channel, { resolve: () => 'unused' }, (level, message, fields) =>
      lines.push({ level, message, fields }),
    );
    const warned = lines.filter((l) => l.level === 'warn').map((l) => `${String(l.fields?.['tool'])}: ${String(l.fields?.['problem'])}`);
    expect(warned).toEqual(
      expect.arrayContaining([
        'write_text: the upstream takes arguments the contract does not declare: content',
        'write_text: the contract declares arguments the upstream no longer takes: text',
        'shred_file: the upstream no longer lists a tool named "shred_file"',
      ]),
    );
    expect(warned.some((w) => w.startsWith('write_file:'))).toBe(false);
  });

  it('an upstream that cannot be started is reported, and the check never throws', async () => {
    const broken = contracts().map((c) =>
      c.channel === 'mcp'
        ? { ...c, target: { ...c.target, upstream: { ...c.target.upstream, name: 'gone', args: ['/nonexistent/server.js'] } } }
        : c,
    );
    const lines: { message: string; fields?: Record<string, unknown> }[] = [];
    await reportUpstreamDrift(broken, channel, { resolve: () => 'unused' }, (_level, message, fields) => lines.push({ message, fields }));
    expect(lines).toEqual([
      expect.objectContaining({
        message: 'MCP upstream could not be asked for its tools at start',
        fields: expect.objectContaining({ upstream: 'gone' }),
      }),
    ]);
  });
});
