import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ToolContract, newExecutionId, parseToolContracts } from '@onceport/domain';
import { EXECUTION_STATUS_TOOL, toolCatalog } from './mcp-tool-catalog';

const FIXTURES = join(__dirname, '../../../domain/test/fixtures');

const EXTRA = `
tools:
  - name: rotate_key
    description: Rotate an API key (the operator declared no effect).
    channel: http
    target:
      origin: https://keys.example.com
      method: POST
      path: /v1/keys/{key_id}/rotate
    arguments:
      type: object
      properties: { key_id: { type: string } }
      required: [key_id]
    roles: { key_id: identity }
  - name: update_quota
    description: Set a quota if the version still matches.
    channel: http
    target:
      origin: https://quota.example.com
      method: PUT
      path: /v1/quotas/{quota_id}
    arguments:
      type: object
      properties: { quota_id: { type: string }, limit: { type: integer } }
      required: [quota_id, limit]
    roles: { quota_id: identity, limit: identity }
    effect: conditional
    probe:
      method: GET
      path: /v1/quotas/{quota_id}
      applied: { status: [200] }
      not_applied: { status: [404] }
`;

const contracts: ToolContract[] = [
  ...parseToolContracts(readFileSync(join(FIXTURES, 'contracts/demo.yaml'), 'utf8'), 'demo.yaml'),
  ...parseToolContracts(readFileSync(join(FIXTURES, 'contracts-ssh/ops.yaml'), 'utf8'), 'ops.yaml'),
  ...parseToolContracts(EXTRA, 'extra.yaml'),
];
const catalog = toolCatalog(new Map(contracts.map((c) => [c.name, c])));
const tool = (name: string) => {
  const found = catalog.find((t) => t.name === name);
  if (!found) throw new Error(`${name} is not listed`);
  return found;
};

describe('toolCatalog: tools/list from the contracts', () => {
  it('lists every contract with its own schema and title, then the built-in status tool', () => {
    expect(catalog.map((t) => t.name)).toEqual([...contracts.map((c) => c.name), EXECUTION_STATUS_TOOL]);
    for (const contract of contracts) {
      expect(tool(contract.name)).toMatchObject({
        title: contract.title,
        inputSchema: contract.argumentsSchema,
        annotations: { title: contract.title, openWorldHint: true },
      });
      expect(tool(contract.name).description).toContain(contract.description);
      expect(tool(contract.name).description).toMatch(/Every call gets an execution id; a retry of the same call attaches to it/);
    }
  });

  it('effect none (read-only, enforced) → readOnlyHint, not destructive, idempotent', () => {
    expect(tool('get_build_status').annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
  });

  it('idempotent → idempotentHint, not read-only', () => {
    for (const name of ['create_deployment', 'send_email']) {
      expect(tool(name).annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    }
  });

  it('irreversible → destructiveHint, never idempotentHint; per-use approval is said', () => {
    expect(tool('charge_payment').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(tool('charge_payment').description).toMatch(/Effect: irreversible; each call needs a human approval\./);
  });

  it('an undeclared effect is the worst case: destructiveHint, not idempotent, and the description says so', () => {
    expect(tool('rotate_key').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(tool('rotate_key').description).toMatch(/Effect: irreversible \(not declared: treated as the worst case\)/);
  });

  it('a remote command is destructive and not idempotent; a conditional update is not idempotent', () => {
    expect(tool('run_migration').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(tool('update_quota').annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
  });

  it('only read-only tools claim readOnlyHint', () => {
    const readOnly = catalog.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    expect(readOnly.sort()).toEqual(['get_build_status', EXECUTION_STATUS_TOOL].sort());
  });

  it('lists the built-in status tool: read-only, closed-world, taking one execution id', () => {
    const status = tool(EXECUTION_STATUS_TOOL);
    expect(status.annotations).toEqual({
      title: 'Execution status',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(status.inputSchema).toMatchObject({ type: 'object', required: ['execution_id'], additionalProperties: false });
    const pattern = new RegExp(String((status.inputSchema.properties?.['execution_id'] as { pattern: string }).pattern));
    expect(newExecutionId(Date.now(), Buffer.alloc(10, 7))).toMatch(pattern);
    expect('exe_not-an-id').not.toMatch(pattern);
  });
});
