// Builders for contract YAML in tests: start from a valid tool, override what the test is about.
import { stringify } from 'yaml';
import { parseToolContracts, ToolContractError, type ContractIssue, type ToolContract } from '../src/tool-contracts';

export const ED25519_HOST_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINiQYR0hZkkIog77eYrhqR082f1DhamzL5mmvGR62VdA';
export const OTHER_ED25519_HOST_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK+g8eV6ygck1rAXrhl2ZXXXp7ywcB3WhHNDGZ3wUFJK';

type Fields = Record<string, unknown>;

export function httpTool(overrides: Fields = {}): Fields {
  return {
    name: 'create_item',
    description: 'Create an item.',
    channel: 'http',
    target: { origin: 'https://api.example.com', method: 'POST', path: '/v1/items', idempotency_header: 'Idempotency-Key' },
    arguments: {
      type: 'object',
      properties: { sku: { type: 'string' }, note: { type: 'string' } },
      required: ['sku'],
    },
    roles: { sku: 'identity', note: 'generated' },
    effect: 'idempotent',
    ...overrides,
  };
}

export function sshTool(overrides: Fields = {}): Fields {
  return {
    name: 'run_migration',
    description: 'Run a database migration.',
    channel: 'ssh',
    target: { host: 'db1.internal', user: 'deploy', host_key: ED25519_HOST_KEY, argv: ['/usr/local/bin/migrate', '--to={version}'] },
    arguments: { type: 'object', properties: { version: { type: 'string' } }, required: ['version'] },
    roles: { version: 'identity' },
    credential_ref: 'ssh-deploy',
    effect: 'remote_command',
    ...overrides,
  };
}

/** Replace one nested field, e.g. `withField(httpTool(), ['target', 'method'], 'PUT')`. */
export function withField(tool: Fields, path: readonly string[], value: unknown): Fields {
  const copy = structuredClone(tool);
  let node: Fields = copy;
  path.slice(0, -1).forEach((key) => (node = node[key] as Fields));
  const last = path[path.length - 1] as string;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

export function contractsYaml(...tools: Fields[]): string {
  return stringify({ tools });
}

export function parseOne(tool: Fields, file = 'contracts/test.yaml'): ToolContract {
  const [contract] = parseToolContracts(contractsYaml(tool), file);
  if (!contract) throw new Error('no contract parsed');
  return contract;
}

/** The issues a YAML text produces; fails the test if it parses. */
export function issuesOf(yamlText: string, file = 'contracts/test.yaml'): ContractIssue[] {
  try {
    parseToolContracts(yamlText, file);
  } catch (error) {
    if (error instanceof ToolContractError) return [...error.issues];
    throw error;
  }
  throw new Error('expected the contract file to be refused');
}
