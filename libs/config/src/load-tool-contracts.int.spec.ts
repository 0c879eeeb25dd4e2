import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolContractError, type ContractIssue } from '@onceport/domain';
import { loadToolContracts } from './load-tool-contracts';

const DEMO_DIR = join(__dirname, '../../domain/test/fixtures/contracts');

const ping = (name: string, extra = ''): string => `
tools:
  - name: ${name}
    description: Ping.
    channel: http
    target: { origin: https://api.example.com, method: GET, path: /ping }
    effect: none${extra}
`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'onceport-contracts-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function failure(run: Promise<unknown>): Promise<{ message: string; issues: readonly ContractIssue[] }> {
  try {
    await run;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolContractError);
    return error as ToolContractError;
  }
  throw new Error('expected loadToolContracts to fail');
}

describe('loadToolContracts', () => {
  it('loads the demo fixture directory', async () => {
    const loaded = await loadToolContracts(DEMO_DIR);
    expect([...loaded.byName.keys()]).toEqual(['create_deployment', 'send_email', 'charge_payment', 'get_build_status']);
    expect(loaded.files).toEqual([join(DEMO_DIR, 'demo.yaml')]);
  });

  it('reads *.yaml and *.yml in name order, skipping other and hidden files, following symlinks', async () => {
    await writeFile(join(dir, 'b.yml'), ping('b_tool'));
    await writeFile(join(dir, 'a.yaml'), ping('a_tool'));
    await writeFile(join(dir, 'notes.txt'), 'not yaml');
    await writeFile(join(dir, '.swap.yaml'), 'tools: [');
    await mkdir(join(dir, '..data'));
    await writeFile(join(dir, '..data', 'c.yaml'), ping('c_tool'));
    await symlink(join(dir, '..data', 'c.yaml'), join(dir, 'c.yaml'));
    const loaded = await loadToolContracts(dir);
    expect(loaded.contracts.map((c) => c.name)).toEqual(['a_tool', 'b_tool', 'c_tool']);
    expect(loaded.byName.get('b_tool')?.source.file).toBe(join(dir, 'b.yml'));
  });

  it('loads an explicit list of files', async () => {
    await writeFile(join(dir, 'one.yaml'), ping('one'));
    expect((await loadToolContracts([join(dir, 'one.yaml')])).contracts.map((c) => c.name)).toEqual(['one']);
  });

  it('lists every problem of every file in one error, each naming file, field path and expectation', async () => {
    await writeFile(join(dir, 'a.yaml'), ping('good_tool'));
    await writeFile(join(dir, 'b.yaml'), ping('bad_tool').replace('effect: none', 'effect: maybe'));
    await writeFile(join(dir, 'c.yaml'), 'tools:\n  - name: x\n   description: bad indent\n');
    const error = await failure(loadToolContracts(dir));
    expect(error.issues.map((i) => [i.file, i.code])).toEqual([
      [join(dir, 'b.yaml'), 'invalid_field'],
      [join(dir, 'c.yaml'), 'yaml_syntax'],
    ]);
    expect(error.message).toContain(
      `${join(dir, 'b.yaml')}: tools[0].effect: got "maybe"; expected one of none | idempotent | conditional | irreversible | remote_command (line 7)`,
    );
    expect(error.message).toMatch(new RegExp(`${join(dir, 'c.yaml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: got a YAML syntax error`));
  });

  it('reports a tool name declared in two files, naming both', async () => {
    await writeFile(join(dir, 'a.yaml'), ping('same'));
    await writeFile(join(dir, 'b.yaml'), ping('same'));
    const error = await failure(loadToolContracts(dir));
    expect(error.issues).toHaveLength(1);
    expect(error.message).toContain(
      `${join(dir, 'b.yaml')}: tools[0].name: got "same", already declared in ${join(dir, 'a.yaml')} (tools[0])`,
    );
  });

  it('refuses an idempotent tool that nothing backs (no idempotency header, no probe), naming the file, the tool and the fix', async () => {
    const blind = ping('send_email')
      .replace('method: GET, path: /ping', 'method: POST, path: /v1/messages')
      .replace('effect: none', 'effect: idempotent');
    await writeFile(join(dir, 'mail.yaml'), blind);
    await writeFile(
      join(dir, 'backed.yaml'),
      blind.replace('send_email', 'send_sms').replace('path: /v1/messages', 'path: /v1/sms, idempotency_header: Idempotency-Key'),
    );
    const error = await failure(loadToolContracts(dir));
    expect(error.issues.map((i) => [i.file, i.code, i.path])).toEqual([[join(dir, 'mail.yaml'), 'blind_idempotency', 'tools[0].effect']]);
    expect(error.message).toContain(
      `${join(dir, 'mail.yaml')}: tools[0].effect: got effect idempotent for tool "send_email" with neither target.idempotency_header nor a probe`,
    );
    expect(error.message).toMatch(/expected target\.idempotency_header .*or a probe: .*; or effect: irreversible/);
  });

  it('refuses an empty directory, naming it', async () => {
    await writeFile(join(dir, 'readme.md'), '# no contracts here');
    const error = await failure(loadToolContracts(dir));
    expect(error.message).toContain(`${dir}: got a directory without *.yaml or *.yml files; expected at least one tool contract file`);
  });

  it('refuses a missing directory or file, naming the path', async () => {
    const missing = join(dir, 'nope');
    expect((await failure(loadToolContracts(missing))).message).toContain(
      `${missing}: got a path that does not exist; expected a directory of *.yaml`,
    );
    expect((await failure(loadToolContracts([join(dir, 'x.yaml')]))).issues[0]).toMatchObject({
      code: 'no_contract_files',
      file: join(dir, 'x.yaml'),
    });
    expect((await failure(loadToolContracts([]))).issues[0]?.code).toBe('no_contract_files');
  });
});
