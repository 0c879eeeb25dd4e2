import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { mergeToolContracts } from './merge-tool-contracts';
import { parseToolContracts } from './parse-tool-contracts';
import { ToolContractError, type ContractIssue, type ContractIssueCode } from './tool-contract-error';
import type { McpToolContract } from './tool-contract.types';

type Fields = Record<string, unknown>;
const FILE = 'contracts/mcp.yaml';

const stdioUpstream = (overrides: Fields = {}): Fields => ({
  name: 'files',
  transport: 'stdio',
  command: 'node',
  args: ['./server.js', '/srv/shared'],
  ...overrides,
});
const httpUpstream = (overrides: Fields = {}): Fields => ({
  name: 'remote',
  transport: 'http',
  url: 'https://mcp.example.com/mcp',
  ...overrides,
});
const mcpTool = (overrides: Fields = {}): Fields => ({
  name: 'write_file',
  description: 'Write a file.',
  channel: 'mcp',
  target: { upstream: 'files' },
  arguments: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
  roles: { path: 'identity', content: 'generated' },
  // Not idempotent: the upstream documents no idempotency key, and a blind re-send is refused at load.
  effect: 'irreversible',
  ...overrides,
});
const file = (upstreams: Fields[] | undefined, ...tools: Fields[]): string => stringify(upstreams ? { upstreams, tools } : { tools });
const mcp = (yaml: string, name = FILE): McpToolContract[] => parseToolContracts(yaml, name) as McpToolContract[];

function issuesOf(yaml: string): ContractIssue[] {
  try {
    parseToolContracts(yaml, FILE);
  } catch (error) {
    if (error instanceof ToolContractError) return [...error.issues];
    throw error;
  }
  throw new Error('expected the contract file to be refused');
}

/** The one issue of `code` at `path`; its message names the file, the path and the expectation. */
function theIssue(yaml: string, code: ContractIssueCode, path: string): ContractIssue {
  const all = issuesOf(yaml);
  const matching = all.filter((i) => i.code === code && i.path === path);
  if (matching.length !== 1) throw new Error(`expected one ${code} at ${path}, got:\n${all.map((i) => i.message).join('\n')}`);
  const issue = matching[0] as ContractIssue;
  expect(issue.message).toContain(`${FILE}: ${path}: got `);
  return issue;
}

describe('parseToolContracts: channel mcp', () => {
  it('parses a stdio upstream and a tool with every default filled', () => {
    const upstream = stdioUpstream({
      env: { LOG_LEVEL: 'info' },
      credential_ref: 'files-token',
      credential_env: 'FILES_TOKEN',
      cwd: '/srv',
    });
    const [contract] = mcp(file([upstream], mcpTool()));
    expect(contract).toEqual({
      name: 'write_file',
      title: 'write_file',
      description: 'Write a file.',
      credentialRef: 'files-token',
      deliberateRepeats: 'allowed',
      argumentsSchema: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
        additionalProperties: false,
      },
      argumentSpecs: {
        path: { role: 'identity', normalize: [], sensitive: false, derivation: null },
        content: { role: 'generated', normalize: [], sensitive: false, derivation: null },
      },
      effect: 'irreversible',
      effectDeclared: true,
      correlationWindowMs: 604_800_000,
      ledgerRetentionMs: null,
      approval: 'none',
      source: { file: FILE, index: 0, line: expect.any(Number) as number },
      channel: 'mcp',
      target: {
        upstream: {
          name: 'files',
          transport: 'stdio',
          protocol: 'auto',
          connectTimeoutMs: 10_000,
          credentialRef: 'files-token',
          command: 'node',
          args: ['./server.js', '/srv/shared'],
          env: { LOG_LEVEL: 'info' },
          credentialEnv: 'FILES_TOKEN',
          cwd: '/srv',
        },
        tool: 'write_file',
        timeoutMs: 30_000,
        maxResultBytes: 1_048_576,
        idempotencyMetaKey: null,
      },
      probe: null,
    });
  });

  it('parses an HTTP upstream: normalised URL, explicit fields, bearer by default with a credential', () => {
    const yaml = `
upstreams:
  - name: remote
    transport: http
    url: HTTPS://MCP.Example.com:443/mcp?tenant=acme
    credential_ref: remote-token
    protocol: 2026-07-28
    connect_timeout: 3s
tools:
  - name: search_docs
    description: Search.
    channel: mcp
    target: { upstream: remote, tool: docs.search, timeout: 2m, max_result_bytes: 4096, idempotency_meta_key: com.example/idempotency_key }
    effect: none
    correlation_window: 5m
`;
    const [contract] = mcp(yaml);
    expect(contract).toMatchObject({
      credentialRef: 'remote-token',
      effect: 'none',
      correlationWindowMs: 300_000,
      target: {
        upstream: {
          name: 'remote',
          transport: 'http',
          url: 'https://mcp.example.com/mcp?tenant=acme',
          auth: { kind: 'bearer' },
          protocol: '2026-07-28',
          connectTimeoutMs: 3_000,
          credentialRef: 'remote-token',
        },
        tool: 'docs.search',
        timeoutMs: 120_000,
        maxResultBytes: 4096,
        idempotencyMetaKey: 'com.example/idempotency_key',
      },
    });
  });

  it('defaults auth to none without a credential, allows http on loopback, and reads OAuth client credentials', () => {
    const local = mcp(file([httpUpstream({ url: 'http://127.0.0.1:3001/mcp' })], mcpTool({ target: { upstream: 'remote' } })));
    expect(local[0]?.target.upstream).toMatchObject({ url: 'http://127.0.0.1:3001/mcp', auth: { kind: 'none' }, credentialRef: null });
    expect(local[0]?.credentialRef).toBeNull();
    const oauth = httpUpstream({
      credential_ref: 'remote-secret',
      auth: 'oauth_client_credentials',
      issuer: 'https://auth.example.com',
      client_id: 'onceport-dispatcher',
      scope: 'files:read files:write',
    });
    const [contract] = mcp(file([oauth], mcpTool({ target: { upstream: 'remote' } })));
    expect(contract?.target.upstream).toMatchObject({
      auth: {
        kind: 'oauth_client_credentials',
        issuer: 'https://auth.example.com',
        clientId: 'onceport-dispatcher',
        scope: 'files:read files:write',
      },
    });
  });

  it('shares one frozen upstream object between the tools of a file', () => {
    const [a, b] = mcp(file([stdioUpstream()], mcpTool(), mcpTool({ name: 'other', target: { upstream: 'files', tool: 'write_file' } })));
    expect(a?.target.upstream).toBe(b?.target.upstream);
    expect(b?.target.tool).toBe('write_file');
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a?.target.upstream)).toBe(true);
    expect(Object.isFrozen(a?.target.upstream.transport === 'stdio' ? a.target.upstream.args : null)).toBe(true);
  });

  it('accepts an mcp_task probe (the upstream is asked for a task the reconciler polls), and no probe means none', () => {
    const [withProbe] = mcp(file([stdioUpstream()], mcpTool({ effect: 'irreversible', probe: { kind: 'mcp_task' } })));
    expect(withProbe?.probe).toEqual({ kind: 'mcp_task' });
    const [without] = mcp(file([stdioUpstream()], mcpTool({ effect: 'irreversible' })));
    expect(without?.probe).toBeNull();
  });

  it('accepts a conditional MCP tool only with the mcp_task probe (its task says whether the condition held and it ran)', () => {
    const [conditional] = mcp(file([stdioUpstream()], mcpTool({ effect: 'conditional', probe: { kind: 'mcp_task' } })));
    expect(conditional).toMatchObject({ effect: 'conditional', probe: { kind: 'mcp_task' } });
  });

  it('treats an undeclared effect as irreversible, whatever the upstream claims', () => {
    const [contract] = mcp(file([stdioUpstream()], mcpTool({ effect: undefined })));
    expect(contract).toMatchObject({ effect: 'irreversible', effectDeclared: false, correlationWindowMs: 7 * 86_400_000 });
  });

  it('still parses files without upstreams', () => {
    const yaml = stringify({
      tools: [{ name: 'ping', description: 'Ping.', channel: 'http', target: { origin: 'https://a.example', method: 'GET', path: '/' } }],
    });
    expect(parseToolContracts(yaml, FILE)).toHaveLength(1);
  });

  it('loads the server-filesystem fixture', () => {
    const text = readFileSync(join(__dirname, '../../test/fixtures/contracts-mcp/filesystem.yaml'), 'utf8');
    const contracts = mcp(text, 'filesystem.yaml');
    expect(contracts.map((c) => [c.name, c.target.tool, c.effect, c.effectDeclared])).toEqual([
      ['write_file', 'write_file', 'irreversible', true],
      ['create_directory', 'create_directory', 'irreversible', true],
      ['move_file', 'move_file', 'irreversible', false],
      ['read_text_file', 'read_text_file', 'none', true],
      ['list_directory', 'list_directory', 'none', true],
      ['get_file_info', 'get_file_info', 'none', true],
      ['files_allowed_directories', 'list_allowed_directories', 'none', true],
    ]);
    expect(new Set(contracts.map((c) => c.target.upstream)).size).toBe(1);
    expect(contracts[0]?.argumentSpecs).toMatchObject({ path: { role: 'identity' }, content: { role: 'generated' } });
  });
});

describe('parseToolContracts: channel mcp refusals', () => {
  it('refuses an upstream name declared twice', () => {
    const issue = theIssue(file([stdioUpstream(), httpUpstream({ name: 'files' })], mcpTool()), 'duplicate_upstream', 'upstreams[1].name');
    expect(issue.found).toBe('"files", already declared at upstreams[0]');
  });

  it('refuses a tool naming no upstream of the file, listing those that exist', () => {
    const yaml = file([stdioUpstream(), httpUpstream()], mcpTool({ target: { upstream: 'fils' } }));
    const issue = theIssue(yaml, 'unknown_upstream', 'tools[0].target.upstream');
    expect(issue.expected).toContain('(files | remote) — did you mean "files"?');
    expect(theIssue(file(undefined, mcpTool()), 'unknown_upstream', 'tools[0].target.upstream').expected).toContain('it declares none');
  });

  it('reports a broken upstream once, not again at each tool that names it', () => {
    const issues = issuesOf(file([stdioUpstream({ cwd: 'relative' })], mcpTool()));
    expect(issues.map((i) => [i.code, i.path])).toEqual([['invalid_field', 'upstreams[0].cwd']]);
  });

  it('refuses a credential_ref on the tool, pointing at the upstream, and never echoes it', () => {
    const issue = theIssue(file([stdioUpstream()], mcpTool({ credential_ref: 'files-token' })), 'invalid_field', 'tools[0].credential_ref');
    expect(issue.expected).toContain('put credential_ref on the upstream "files"');
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const yaml = file([stdioUpstream()], mcpTool({ credential_ref: token }));
    expect(theIssue(yaml, 'secret_in_contract', 'tools[0].credential_ref').message).not.toContain(token);
  });

  it('pairs credential_env with credential_ref on stdio, and checks the variable name', () => {
    const noRef = file([stdioUpstream({ credential_env: 'FILES_TOKEN' })], mcpTool());
    expect(theIssue(noRef, 'invalid_field', 'upstreams[0].credential_env').expected).toContain('credential_ref naming the credential');
    const noEnv = file([stdioUpstream({ credential_ref: 'files-token' })], mcpTool());
    expect(theIssue(noEnv, 'invalid_field', 'upstreams[0].credential_env').found).toBe('nothing (the field is missing)');
    const badName = file([stdioUpstream({ credential_ref: 'files-token', credential_env: 'FILES-TOKEN' })], mcpTool());
    expect(theIssue(badName, 'invalid_field', 'upstreams[0].credential_env').expected).toContain('environment variable name');
    const onHttp = file([httpUpstream({ credential_ref: 'r', credential_env: 'R' })], mcpTool({ target: { upstream: 'remote' } }));
    expect(theIssue(onHttp, 'unknown_field', 'upstreams[0].credential_env').expected).toContain('one of the known fields');
  });

  it('keeps secrets out of the stdio command line and environment', () => {
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const args = file([stdioUpstream({ args: ['server.js', `--token=${token}`] })], mcpTool());
    expect(theIssue(args, 'secret_in_contract', 'upstreams[0].args[1]').message).not.toContain(token);
    const envName = file([stdioUpstream({ env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'x' } })], mcpTool());
    expect(theIssue(envName, 'secret_in_contract', 'upstreams[0].env.GITHUB_PERSONAL_ACCESS_TOKEN').expected).toContain('credential_env');
    const envValue = file([stdioUpstream({ env: { SETTING: token } })], mcpTool());
    expect(theIssue(envValue, 'secret_in_contract', 'upstreams[0].env.SETTING').message).not.toContain(token);
    const shadow = file([stdioUpstream({ credential_ref: 't', credential_env: 'T', env: { T: 'x' } })], mcpTool());
    expect(theIssue(shadow, 'invalid_field', 'upstreams[0].env.T').expected).toContain('no static value');
    expect(theIssue(file([stdioUpstream({ env: { '1X': 'a' } })], mcpTool()), 'invalid_field', 'upstreams[0].env.1X').expected).toContain(
      'not starting with a digit',
    );
  });

  it('refuses a shell command line as command, and a relative cwd', () => {
    const shell = file([stdioUpstream({ command: 'npx -y @modelcontextprotocol/server-filesystem' })], mcpTool());
    expect(theIssue(shell, 'invalid_field', 'upstreams[0].command').expected).toContain('arguments go under args');
    expect(theIssue(file([stdioUpstream({ command: './bin/server' })], mcpTool()), 'invalid_field', 'upstreams[0].command')).toBeDefined();
    expect(theIssue(file([stdioUpstream({ cwd: 'srv' })], mcpTool()), 'invalid_field', 'upstreams[0].cwd').expected).toContain('absolute');
  });

  it('checks auth against the credential: bearer and OAuth need one, none must not have one', () => {
    const remote = { target: { upstream: 'remote' } };
    const bearer = file([httpUpstream({ auth: 'bearer' })], mcpTool(remote));
    expect(theIssue(bearer, 'invalid_field', 'upstreams[0].credential_ref').expected).toContain('the bearer token');
    const none = file([httpUpstream({ auth: 'none', credential_ref: 'remote-token' })], mcpTool(remote));
    expect(theIssue(none, 'invalid_field', 'upstreams[0].auth').found).toBe('"none" with a credential_ref');
    const oauth = file([httpUpstream({ auth: 'oauth_client_credentials', credential_ref: 's' })], mcpTool(remote));
    expect(issuesOf(oauth).map((i) => i.path)).toEqual(['upstreams[0].issuer', 'upstreams[0].client_id']);
    const stray = file([httpUpstream({ credential_ref: 's', issuer: 'https://auth.example.com' })], mcpTool(remote));
    expect(theIssue(stray, 'invalid_field', 'upstreams[0].issuer').expected).toBe('issuer only with auth: oauth_client_credentials');
    const fields = { auth: 'oauth_client_credentials', credential_ref: 's', client_id: 'c' };
    const cleartext = file([httpUpstream({ ...fields, issuer: 'http://auth.example.com' })], mcpTool(remote));
    expect(theIssue(cleartext, 'invalid_field', 'upstreams[0].issuer').expected).toContain('http only on a loopback host');
    const badScope = file([httpUpstream({ ...fields, issuer: 'https://a.example', scope: 'a "b"' })], mcpTool(remote));
    expect(theIssue(badScope, 'invalid_field', 'upstreams[0].scope').expected).toContain('RFC 6749');
  });

  it('takes https URLs, http only on loopback, with no credential in them', () => {
    const remote = { target: { upstream: 'remote' } };
    const at = 'upstreams[0].url';
    expect(theIssue(file([httpUpstream({ url: 'http://mcp.example.com/mcp' })], mcpTool(remote)), 'invalid_field', at).found).toBe(
      '"http://mcp.example.com/mcp"',
    );
    expect(theIssue(file([httpUpstream({ url: 'mcp.example.com' })], mcpTool(remote)), 'invalid_field', at)).toBeDefined();
    const userinfo = file([httpUpstream({ url: 'https://me:hunter2@mcp.example.com/mcp' })], mcpTool(remote));
    expect(theIssue(userinfo, 'secret_in_contract', at).message).not.toContain('hunter2');
    const query = file([httpUpstream({ url: 'https://mcp.example.com/mcp?api_key=hunter2' })], mcpTool(remote));
    expect(theIssue(query, 'secret_in_contract', at).message).not.toContain('hunter2');
  });

  it('reports an unknown transport, unknown fields and a bad upstream name', () => {
    const yaml = file([{ name: 'Files!', transport: 'sse', comand: 'node' }], mcpTool());
    expect(theIssue(yaml, 'invalid_field', 'upstreams[0].transport').expected).toBe('one of stdio | http');
    expect(theIssue(yaml, 'unknown_field', 'upstreams[0].comand').expected).toContain('did you mean "command"?');
    expect(theIssue(yaml, 'invalid_field', 'upstreams[0].name').expected).toContain('lower-case letters');
    expect(theIssue(stringify({ upstreams: { files: {} }, tools: [mcpTool()] }), 'invalid_field', 'upstreams').expected).toBe(
      'a list of MCP upstreams under upstreams:',
    );
  });

  it('checks the upstream tool name and the idempotency _meta key', () => {
    const tool = file([stdioUpstream()], mcpTool({ target: { upstream: 'files', tool: 'write file' } }));
    expect(theIssue(tool, 'invalid_field', 'tools[0].target.tool').expected).toContain('MCP tool name rules');
    const key = (k: string) => file([stdioUpstream()], mcpTool({ target: { upstream: 'files', idempotency_meta_key: k } }));
    const at = 'tools[0].target.idempotency_meta_key';
    expect(theIssue(key('acme/'), 'invalid_field', at).expected).toContain('MCP _meta key rules');
    expect(theIssue(key('io.modelcontextprotocol/key'), 'invalid_field', at).expected).toContain('reserved by MCP');
    expect(theIssue(key('onceport/execution_id'), 'invalid_field', at).expected).toContain('onceport/execution_id');
    expect(mcp(key('com.example.mcp/idempotency-key'))[0]?.target.idempotencyMetaKey).toBe('com.example.mcp/idempotency-key');
  });

  it('applies the effect rules of every channel', () => {
    const remote = file([stdioUpstream()], mcpTool({ effect: 'remote_command' }));
    expect(theIssue(remote, 'effect_conflict', 'tools[0].effect').expected).toContain('only with channel ssh');
    const conditional = file([stdioUpstream()], mcpTool({ effect: 'conditional' }));
    expect(theIssue(conditional, 'probe_required', 'tools[0].probe').expected).toContain('{ kind: mcp_task }');
    const ledger = file([stdioUpstream()], mcpTool({ effect: 'none', ledger_retention: '1d' }));
    expect(theIssue(ledger, 'effect_conflict', 'tools[0].ledger_retention')).toBeDefined();
    const probe = file([stdioUpstream()], mcpTool({ probe: { kind: 'marker' } }));
    expect(theIssue(probe, 'invalid_field', 'tools[0].probe.kind').expected).toBe('"mcp_task"');
  });
});

describe('mergeToolContracts: MCP upstreams across files', () => {
  it('accepts one upstream name declared alike in two files, and refuses two different declarations', () => {
    const a = parseToolContracts(file([stdioUpstream()], mcpTool()), 'a.yaml');
    const same = parseToolContracts(file([stdioUpstream()], mcpTool({ name: 'other' })), 'b.yaml');
    expect(mergeToolContracts([a, same])).toHaveLength(2);
    const different = parseToolContracts(file([stdioUpstream({ args: ['other.js'] })], mcpTool({ name: 'other' })), 'c.yaml');
    let error: unknown;
    try {
      mergeToolContracts([a, different]);
    } catch (e) {
      error = e;
    }
    expect((error as ToolContractError).issues).toMatchObject([
      {
        code: 'duplicate_upstream',
        file: 'c.yaml',
        path: 'tools[0].target.upstream',
        found: 'upstream "files", declared differently in a.yaml',
      },
    ]);
  });
});
