import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contractsYaml, ED25519_HOST_KEY, httpTool, parseOne, sshTool, withField } from '../../test/contract-builders';
import { parseToolContracts } from './parse-tool-contracts';

const FULL_HTTP = `
tools:
  - name: create_deployment
    title: Create a deployment
    description: Deploy a version.
    channel: http
    target:
      origin: HTTPS://Deploy.Example.com:443/
      method: post
      path: /v1/projects/{project}/deployments
      body: json_arguments
      headers: { Accept: application/json }
      timeout: 15s
      max_response_bytes: 65536
      idempotency_header: Idempotency-Key
    credential_ref: deploy-api
    arguments:
      type: object
      properties:
        project: { type: string }
        environment: { type: string, default: staging }
        notes: { type: string }
        digest: { type: string }
      required: [project]
      additionalProperties: false
    roles:
      project: identity
      environment: { role: identity, normalize: [trim, lowercase] }
      notes: generated
      digest: { role: derived, derive: sha256, sensitive: true }
    effect: conditional
    probe:
      method: GET
      path: /v1/deployments/by-key/{execution_id}/{project}
      applied: { status: [200], json_path: $.state, equals: live }
      not_applied: { status: [404, 410] }
    correlation_window: 2h
    ledger_retention: 7d
    approval: session
`;

describe('parseToolContracts: valid contracts', () => {
  it('parses a full HTTP contract into camelCase with normalised origin and method', () => {
    const [contract] = parseToolContracts(FULL_HTTP, 'contracts/deploy.yaml');
    expect(contract).toEqual({
      name: 'create_deployment',
      title: 'Create a deployment',
      description: 'Deploy a version.',
      credentialRef: 'deploy-api',
      deliberateRepeats: 'allowed',
      argumentsSchema: {
        type: 'object',
        properties: {
          project: { type: 'string' },
          environment: { type: 'string', default: 'staging' },
          notes: { type: 'string' },
          digest: { type: 'string' },
        },
        required: ['project'],
        additionalProperties: false,
      },
      argumentSpecs: {
        project: { role: 'identity', normalize: [], sensitive: false, derivation: null },
        environment: { role: 'identity', normalize: ['trim', 'lowercase'], sensitive: false, derivation: null },
        notes: { role: 'generated', normalize: [], sensitive: false, derivation: null },
        digest: { role: 'derived', normalize: [], sensitive: true, derivation: { kind: 'sha256', from: 'digest' } },
      },
      effect: 'conditional',
      effectDeclared: true,
      correlationWindowMs: 2 * 3_600_000,
      ledgerRetentionMs: 7 * 86_400_000,
      approval: 'session',
      source: { file: 'contracts/deploy.yaml', index: 0, line: 3 },
      channel: 'http',
      target: {
        origin: 'https://deploy.example.com',
        method: 'POST',
        path: '/v1/projects/{project}/deployments',
        body: 'json_arguments',
        headers: { Accept: 'application/json' },
        timeoutMs: 15_000,
        maxResponseBytes: 65_536,
        idempotencyHeader: 'Idempotency-Key',
      },
      probe: {
        kind: 'http',
        method: 'GET',
        path: '/v1/deployments/by-key/{execution_id}/{project}',
        applied: { status: [200], match: { jsonPath: '$.state', equals: 'live' } },
        notApplied: { status: [404, 410] },
      },
    });
  });

  it('parses a full SSH contract, pinning the host key from a known_hosts line', () => {
    const contract = parseOne(
      sshTool({
        target: {
          host: 'DB1.internal',
          port: 2222,
          user: 'deploy',
          known_hosts: `[db1.internal]:2222 ${ED25519_HOST_KEY} root@db1`,
          argv: ['/usr/local/bin/migrate', '--to={version}', '{target_db}'],
          allow_dash_arguments: ['target_db'],
          marker_dir: '/var/lib/onceport/markers',
          timeout: '15m',
          max_output_bytes: 4096,
        },
        arguments: {
          type: 'object',
          properties: { version: { type: 'string' }, target_db: { type: 'string', default: 'main' } },
          required: ['version'],
        },
        roles: { version: 'identity', target_db: 'identity' },
        probe: { kind: 'marker' },
        credential_ref: 'ssh-deploy',
        approval: 'per_use',
        deliberate_repeats: 'refused',
      }),
    );
    expect(contract).toMatchObject({
      channel: 'ssh',
      effect: 'remote_command',
      credentialRef: 'ssh-deploy',
      approval: 'per_use',
      deliberateRepeats: 'refused',
      correlationWindowMs: 86_400_000,
      target: {
        host: 'db1.internal',
        port: 2222,
        user: 'deploy',
        hostKey: { algorithm: 'ssh-ed25519', publicKey: ED25519_HOST_KEY.split(' ')[1] },
        argv: ['/usr/local/bin/migrate', '--to={version}', '{target_db}'],
        allowDashArguments: ['target_db'],
        markerDir: '/var/lib/onceport/markers',
        timeoutMs: 900_000,
        maxOutputBytes: 4096,
      },
      probe: { kind: 'marker' },
    });
  });

  it('fills every default for a minimal HTTP contract', () => {
    const contract = parseOne({
      name: 'ping',
      description: 'Ping.',
      channel: 'http',
      target: { origin: 'http://localhost:8080', method: 'GET', path: '/ping' },
    });
    expect(contract).toMatchObject({
      title: 'ping',
      credentialRef: null,
      argumentsSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
      argumentSpecs: {},
      effect: 'irreversible',
      effectDeclared: false,
      correlationWindowMs: 7 * 86_400_000,
      ledgerRetentionMs: null,
      approval: 'none',
      target: {
        origin: 'http://localhost:8080',
        body: 'none',
        headers: {},
        timeoutMs: 10_000,
        maxResponseBytes: 1_048_576,
        idempotencyHeader: null,
      },
      probe: null,
    });
  });

  it('defaults POST bodies to json_arguments and SSH port, marker dir, limits and marker probe', () => {
    expect(parseOne(httpTool())).toMatchObject({ target: { body: 'json_arguments' } });
    const ssh = parseOne(withField(sshTool(), ['probe'], undefined));
    expect(ssh).toMatchObject({
      target: { port: 22, markerDir: '~/.onceport/markers', timeoutMs: 60_000, maxOutputBytes: 1_048_576, allowDashArguments: [] },
      probe: { kind: 'marker' },
    });
  });

  it.each([
    ['none', 60_000],
    ['idempotent', 86_400_000],
    ['conditional', 3_600_000],
    ['irreversible', 7 * 86_400_000],
  ])('defaults the correlation window for effect %s', (effect, ms) => {
    const probe = { method: 'GET', path: '/v1/items/{execution_id}', applied: { status: [200] } };
    const method = effect === 'none' ? 'GET' : 'POST';
    const tool = withField(withField(httpTool({ effect, probe }), ['target', 'method'], method), ['target', 'body'], undefined);
    expect(parseOne(tool).correlationWindowMs).toBe(ms);
  });

  it('treats an undeclared effect as irreversible and says so', () => {
    const contract = parseOne(withField(httpTool(), ['effect'], undefined));
    expect(contract.effect).toBe('irreversible');
    expect(contract.effectDeclared).toBe(false);
  });

  it('returns frozen contracts', () => {
    const contract = parseOne(httpTool());
    expect(Object.isFrozen(contract)).toBe(true);
    expect(Object.isFrozen(contract.argumentsSchema.properties)).toBe(true);
  });

  it('parses several tools of one file in order', () => {
    const contracts = parseToolContracts(contractsYaml(httpTool(), sshTool()), 'x.yaml');
    expect(contracts.map((c) => [c.name, c.source.index])).toEqual([
      ['create_item', 0],
      ['run_migration', 1],
    ]);
  });

  it('loads the demo contracts fixture', () => {
    const text = readFileSync(join(__dirname, '../../test/fixtures/contracts/demo.yaml'), 'utf8');
    const contracts = parseToolContracts(text, 'demo.yaml');
    expect(contracts.map((c) => [c.name, c.effect, c.approval])).toEqual([
      ['create_deployment', 'idempotent', 'session'],
      ['send_email', 'idempotent', 'none'],
      ['charge_payment', 'irreversible', 'per_use'],
      ['get_build_status', 'none', 'none'],
    ]);
    expect(contracts[1]?.ledgerRetentionMs).toBe(30 * 86_400_000);
    expect(contracts[2]?.argumentSpecs['card_token']).toEqual({ role: 'identity', normalize: [], sensitive: true, derivation: null });
  });

  it('loads the SSH demo fixture', () => {
    const text = readFileSync(join(__dirname, '../../test/fixtures/contracts-ssh/ops.yaml'), 'utf8');
    expect(parseToolContracts(text, 'ops.yaml')).toMatchObject([
      { name: 'run_migration', channel: 'ssh', effect: 'remote_command', probe: { kind: 'marker' }, target: { timeoutMs: 600_000 } },
    ]);
  });
});
