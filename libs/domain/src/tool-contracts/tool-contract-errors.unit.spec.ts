import {
  contractsYaml,
  ED25519_HOST_KEY,
  httpTool,
  issuesOf,
  OTHER_ED25519_HOST_KEY,
  sshTool,
  withField,
} from '../../test/contract-builders';
import type { ContractIssue, ContractIssueCode } from './tool-contract-error';
import { ToolContractError } from './tool-contract-error';
import { parseToolContracts } from './parse-tool-contracts';

const FILE = 'contracts/test.yaml';

/** The one issue of `code` in the file; its message must name the file, the path and the expectation. */
function theIssue(yamlText: string, code: ContractIssueCode, path: string): ContractIssue {
  const issues = issuesOf(yamlText, FILE).filter((i) => i.code === code && i.path === path);
  if (issues.length !== 1)
    throw new Error(
      `expected one ${code} at ${path}, got:\n${issuesOf(yamlText, FILE)
        .map((i) => i.message)
        .join('\n')}`,
    );
  const issue = issues[0] as ContractIssue;
  expect(issue.message).toContain(`${FILE}: ${path}: got `);
  expect(issue.message).toContain('; expected ');
  return issue;
}

describe('parseToolContracts: every problem names file, field path, what was found and what is expected', () => {
  it('reports a wrong enum value in the documented form', () => {
    const issue = theIssue(contractsYaml(httpTool({ effect: 'maybe' })), 'invalid_field', 'tools[0].effect');
    expect(issue.message).toBe(
      'contracts/test.yaml: tools[0].effect: got "maybe"; expected one of none | idempotent | conditional | irreversible | remote_command (line 22)',
    );
    expect(issue.line).toBe(22);
  });

  it('reports YAML syntax errors with file and line', () => {
    const [issue, ...rest] = issuesOf('tools:\n  - name: a\n    effect: none\n    effect: none\n', FILE);
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ code: 'yaml_syntax', line: 4 });
    expect(issue?.message).toMatch(/^contracts\/test\.yaml:4: got a YAML syntax error .*unique.*; expected valid YAML/);
  });

  it('refuses an alias bomb as a YAML problem, not a crash', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcdefgh'[i]}`).join(', ')}]`),
      'tools: *h',
    ].join('\n');
    expect(issuesOf(bomb, FILE)[0]?.code).toBe('yaml_syntax');
  });

  it('reports a file without a tools list, and an empty file', () => {
    expect(theIssue('tool: []\n', 'unknown_field', 'tool').message).toContain('did you mean "tools"?');
    expect(issuesOf('', FILE)[0]?.message).toBe('contracts/test.yaml: got an empty file; expected a mapping with a tools: list');
    expect(theIssue('tools: []\n', 'invalid_field', 'tools').expected).toBe('at least one tool contract under tools:');
  });

  it('reports missing required fields and wrong types', () => {
    const yaml = contractsYaml(withField(httpTool({ name: 'bad name!' }), ['description'], undefined));
    expect(theIssue(yaml, 'invalid_field', 'tools[0].description').found).toBe('nothing (the field is missing)');
    expect(theIssue(yaml, 'invalid_field', 'tools[0].name').expected).toContain('1–64 letters, digits, _ or -');
    expect(theIssue(contractsYaml(httpTool({ channel: 'grpc' })), 'invalid_field', 'tools[0].channel').expected).toBe(
      'one of http | ssh | mcp',
    );
    expect(
      theIssue(contractsYaml(withField(httpTool(), ['target', 'timeout'], 30)), 'invalid_field', 'tools[0].target.timeout').expected,
    ).toContain('500ms, 30s');
  });

  it('reports an unknown field with a suggestion, so a typo never silently means "undeclared"', () => {
    const yaml = contractsYaml(withField(httpTool({ efect: 'none' }), ['effect'], undefined));
    const issue = theIssue(yaml, 'unknown_field', 'tools[0].efect');
    expect(issue.message).toContain('did you mean "effect"?');
  });

  it('reports an argument without a role, naming the argument and the fix', () => {
    const issue = theIssue(contractsYaml(httpTool({ roles: { sku: 'identity' } })), 'missing_role', 'tools[0].roles.note');
    expect(issue.message).toContain('add "note: identity" (or derived | generated) under roles');
  });

  it('reports a role for an argument that does not exist, and a bad role', () => {
    const yaml = contractsYaml(httpTool({ roles: { sku: 'identiy', note: 'generated', color: 'identity' } }));
    expect(theIssue(yaml, 'role_for_unknown_argument', 'tools[0].roles.color').expected).toContain('sku | note');
    expect(theIssue(yaml, 'invalid_field', 'tools[0].roles.sku').expected).toBe('one of identity | derived | generated');
    const bad = contractsYaml(httpTool({ roles: { sku: { role: 'identity', normalize: ['uppercase'] }, note: 'generated' } }));
    expect(theIssue(bad, 'invalid_field', 'tools[0].roles.sku.normalize[0]').expected).toBe('one of trim | lowercase | email | url');
  });

  it('refuses normalize on non-text arguments', () => {
    const tool = withField(
      httpTool({ roles: { sku: { role: 'identity', normalize: ['trim'] }, note: 'generated' } }),
      ['arguments', 'properties', 'sku'],
      { type: 'integer' },
    );
    expect(theIssue(contractsYaml(tool), 'invalid_field', 'tools[0].roles.sku.normalize').expected).toContain('type string');
  });

  it('reports an invalid JSON Schema at the offending keyword', () => {
    const metaSchema = withField(httpTool(), ['arguments', 'properties', 'sku'], { type: 'strin' });
    expect(theIssue(contractsYaml(metaSchema), 'invalid_arguments_schema', 'tools[0].arguments.properties.sku.type').expected).toContain(
      'draft 2020-12',
    );
    const typo = withField(httpTool(), ['arguments', 'properties', 'sku'], { type: 'string', requried: true });
    expect(theIssue(contractsYaml(typo), 'invalid_arguments_schema', 'tools[0].arguments').found).toContain('unknown keyword: "requried"');
    const required = withField(httpTool(), ['arguments', 'required'], ['sku', 'colour']);
    expect(theIssue(contractsYaml(required), 'invalid_arguments_schema', 'tools[0].arguments.required[1]').expected).toContain(
      'a declared property',
    );
    const reserved = withField(
      httpTool({ roles: { sku: 'identity', note: 'generated', execution_id: 'identity' } }),
      ['arguments', 'properties', 'execution_id'],
      { type: 'string' },
    );
    expect(theIssue(contractsYaml(reserved), 'invalid_arguments_schema', 'tools[0].arguments.properties.execution_id').expected).toContain(
      'reserved',
    );
  });

  it('reports placeholders that are undeclared, optional without default, or malformed', () => {
    const undeclared = withField(httpTool(), ['target', 'path'], '/v1/items/{item_id}');
    expect(theIssue(contractsYaml(undeclared), 'invalid_template', 'tools[0].target.path').message).toContain(
      'got placeholder {item_id}; expected a declared argument',
    );
    const optional = withField(httpTool(), ['target', 'path'], '/v1/items/{note}');
    expect(theIssue(contractsYaml(optional), 'invalid_template', 'tools[0].target.path').expected).toContain(
      '"note" listed in arguments.required',
    );
    const malformed = withField(sshTool(), ['target', 'argv'], ['/bin/echo', '{ver sion}']);
    expect(theIssue(contractsYaml(malformed), 'invalid_template', 'tools[0].target.argv[1]').found).toContain('is not a placeholder');
  });

  it('refuses an argument as the SSH program, and dash permissions for arguments not in argv', () => {
    const program = withField(sshTool(), ['target', 'argv'], ['{version}']);
    expect(theIssue(contractsYaml(program), 'invalid_template', 'tools[0].target.argv[0]').expected).toContain('a fixed program');
    const dash = withField(sshTool(), ['target', 'allow_dash_arguments'], ['nope']);
    expect(theIssue(contractsYaml(dash), 'invalid_field', 'tools[0].target.allow_dash_arguments[0]').expected).toContain('version');
  });

  it('lets probes use only {execution_id} and identity arguments', () => {
    const probe = { method: 'GET', path: '/v1/items/{note}', applied: { status: [200] } };
    expect(theIssue(contractsYaml(httpTool({ probe })), 'invalid_template', 'tools[0].probe.path').expected).toContain(
      'an identity argument',
    );
    const overlap = { method: 'GET', path: '/v1/items/{sku}', applied: { status: [200] }, not_applied: { status: [200, 404] } };
    expect(theIssue(contractsYaml(httpTool({ probe: overlap })), 'invalid_field', 'tools[0].probe.not_applied.status').found).toContain(
      'status 200',
    );
    const half = { method: 'GET', path: '/v1/items/{sku}', applied: { status: [200], json_path: '$.state' } };
    expect(theIssue(contractsYaml(httpTool({ probe: half })), 'invalid_field', 'tools[0].probe.applied.equals').expected).toContain(
      'together',
    );
  });

  it('enforces effect none as GET/HEAD, remote_command as SSH-only, no ledger for none', () => {
    expect(theIssue(contractsYaml(httpTool({ effect: 'none' })), 'effect_conflict', 'tools[0].effect').message).toContain(
      'got effect none with method POST; expected method GET or HEAD',
    );
    expect(theIssue(contractsYaml(httpTool({ effect: 'remote_command' })), 'effect_conflict', 'tools[0].effect').expected).toContain(
      'only with channel ssh',
    );
    const ledger = withField(httpTool({ effect: 'none', ledger_retention: '1d' }), ['target', 'method'], 'GET');
    expect(theIssue(contractsYaml(ledger), 'effect_conflict', 'tools[0].ledger_retention').expected).toContain('no ledger_retention');
  });

  it('requires a probe for conditional effects', () => {
    expect(theIssue(contractsYaml(httpTool({ effect: 'conditional' })), 'probe_required', 'tools[0].probe').expected).toContain('applied');
  });

  it('refuses secrets in the contract and never echoes them', () => {
    const token = 'sk_live_51HqLyjWDarjtT1zdp7dcXYZ';
    const secretRef = theIssue(contractsYaml(httpTool({ credential_ref: token })), 'secret_in_contract', 'tools[0].credential_ref');
    expect(secretRef.message).not.toContain(token);
    expect(
      theIssue(contractsYaml(httpTool({ credential_ref: 'Bearer abc' })), 'invalid_field', 'tools[0].credential_ref').message,
    ).not.toContain('abc');
    const header = withField(httpTool(), ['target', 'headers'], { Authorization: 'Bearer s3cr3t' });
    const headerIssue = theIssue(contractsYaml(header), 'secret_in_contract', 'tools[0].target.headers.Authorization');
    expect(headerIssue.message).not.toContain('s3cr3t');
    const origin = withField(httpTool(), ['target', 'origin'], 'https://user:hunter2@api.example.com');
    expect(theIssue(contractsYaml(origin), 'secret_in_contract', 'tools[0].target.origin').message).not.toContain('hunter2');
  });

  it('refuses origins with a path and GET bodies', () => {
    const path = withField(httpTool(), ['target', 'origin'], 'https://api.example.com/v1');
    expect(theIssue(contractsYaml(path), 'invalid_field', 'tools[0].target.origin').expected).toContain('put the path in target.path');
    const body = withField(withField(httpTool(), ['target', 'method'], 'GET'), ['target', 'body'], 'json_arguments');
    expect(theIssue(contractsYaml(body), 'invalid_field', 'tools[0].target.body').expected).toContain('body: none');
  });

  it('requires exactly one pinned host key that matches the target host', () => {
    const none = withField(sshTool(), ['target', 'host_key'], undefined);
    expect(theIssue(contractsYaml(none), 'host_key', 'tools[0].target.host_key').found).toBe('neither host_key nor known_hosts');
    const both = withField(sshTool(), ['target', 'known_hosts'], `db1.internal ${ED25519_HOST_KEY}`);
    expect(theIssue(contractsYaml(both), 'host_key', 'tools[0].target.host_key').found).toBe('both host_key and known_hosts');
    const mislabelled = withField(sshTool(), ['target', 'host_key'], `ecdsa-sha2-nistp256 ${OTHER_ED25519_HOST_KEY.split(' ')[1]}`);
    expect(theIssue(contractsYaml(mislabelled), 'host_key', 'tools[0].target.host_key').found).toContain(
      'ssh-ed25519 key blob labelled ecdsa',
    );
    const wrongHost = withField(
      withField(sshTool(), ['target', 'host_key'], undefined),
      ['target', 'known_hosts'],
      `db2.internal ${ED25519_HOST_KEY}`,
    );
    expect(theIssue(contractsYaml(wrongHost), 'host_key', 'tools[0].target.known_hosts').expected).toBe(
      'a known_hosts entry for db1.internal',
    );
  });

  it('refuses a tool name declared twice in one file', () => {
    expect(theIssue(contractsYaml(httpTool(), httpTool()), 'duplicate_tool', 'tools[1].name').found).toContain(
      'already declared at tools[0]',
    );
  });

  it('collects every problem of every tool in one error, in file order', () => {
    const yaml = contractsYaml(httpTool({ effect: 'maybe', approval: 'always' }), sshTool({ roles: {} }));
    let error: unknown;
    try {
      parseToolContracts(yaml, FILE);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ToolContractError);
    const { issues, message, code } = error as ToolContractError;
    expect(code).toBe('TOOL_CONTRACT_INVALID');
    expect(issues.map((i) => i.path)).toEqual(['tools[0].effect', 'tools[0].approval', 'tools[1].roles.version']);
    expect(message.split('\n')[0]).toBe('Tool contracts are invalid (3 problems):');
    for (const issue of issues) expect(message).toContain(issue.message);
  });
});
