// Issue 16, "no blind idempotency": `effect: idempotent` is a promise that a re-send after an unknown
// outcome is safe. Something must keep it — a key the target deduplicates on, or a probe that asks
// first — or the contract is refused at load, naming the file, the tool and the fix.
import { stringify } from 'yaml';
import { contractsYaml, httpTool, issuesOf, parseOne, sshTool, withField } from '../../test/contract-builders';
import { parseToolContracts } from './parse-tool-contracts';

const FILE = 'contracts/mail.yaml';
const blind = withField(httpTool({ name: 'send_email' }), ['target', 'idempotency_header'], undefined);
const probe = { method: 'GET', path: '/v1/items/by-key/{execution_id}', applied: { status: [200] }, not_applied: { status: [404] } };

const mcpFile = (target: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  stringify({
    upstreams: [{ name: 'files', transport: 'stdio', command: 'node', args: ['./server.js'] }],
    tools: [
      {
        name: 'write_file',
        description: 'Write a file.',
        channel: 'mcp',
        target: { upstream: 'files', ...target },
        arguments: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        roles: { path: 'identity' },
        effect: 'idempotent',
        ...extra,
      },
    ],
  });

describe('effect idempotent needs an idempotency key or a probe', () => {
  it('refuses an HTTP tool with neither, naming the file, the tool and both fixes', () => {
    const issues = issuesOf(contractsYaml(blind), FILE);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ code: 'blind_idempotency', file: FILE, path: 'tools[0].effect' });
    expect(issues[0]?.message).toBe(
      'contracts/mail.yaml: tools[0].effect: got effect idempotent for tool "send_email" with neither target.idempotency_header ' +
        "nor a probe (an unknown outcome would be re-sent blind); expected target.idempotency_header naming the provider's header " +
        'that receives the execution id (e.g. Idempotency-Key), or a probe: { method: GET, path, applied: { status: [...] }, ' +
        'not_applied: { status: [...] } }; or effect: irreversible (an unknown outcome then goes to a human) (line 21)',
    );
  });

  it('accepts an HTTP tool with the header, with a probe, or declared irreversible', () => {
    expect(parseOne(httpTool()).effect).toBe('idempotent');
    expect(parseOne({ ...blind, probe }).probe).toMatchObject({ kind: 'http', method: 'GET' });
    expect(parseOne({ ...blind, effect: 'irreversible' }).effect).toBe('irreversible');
  });

  it('refuses an MCP tool without an idempotency _meta key, and accepts one with it', () => {
    const [issue, ...rest] = issuesOf(mcpFile({}), FILE);
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ code: 'blind_idempotency', path: 'tools[0].effect' });
    expect(issue?.found).toBe(
      'effect idempotent for tool "write_file" with neither target.idempotency_meta_key nor a probe (an unknown outcome would be re-sent blind)',
    );
    expect(issue?.expected).toMatch(
      /^target\.idempotency_meta_key naming the _meta key the upstream documents .*; or effect: irreversible/,
    );
    const [contract] = parseToolContracts(mcpFile({ idempotency_meta_key: 'com.example/idempotency_key' }), FILE);
    expect(contract?.effect).toBe('idempotent');
  });

  it('leaves SSH to its marker: idempotent with markers loads, without markers only the marker rule speaks', () => {
    expect(parseOne(sshTool({ effect: 'idempotent' })).probe).toEqual({ kind: 'marker' });
    const bare = withField(sshTool({ effect: 'idempotent' }), ['target', 'markers'], false);
    const codes = issuesOf(contractsYaml(bare), FILE).map((i) => [i.code, i.path]);
    expect(codes).toEqual([['effect_conflict', 'tools[0].effect']]);
  });

  it('reports every blind tool of a file, not only the first', () => {
    const issues = issuesOf(contractsYaml(blind, { ...blind, name: 'send_sms' }), FILE);
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ['tools[0].effect', 'blind_idempotency'],
      ['tools[1].effect', 'blind_idempotency'],
    ]);
    expect(issues[1]?.found).toContain('"send_sms"');
  });
});
