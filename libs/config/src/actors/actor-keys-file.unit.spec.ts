import { ActorsFileError } from './actors-file-error';
import { hashApiKey } from './api-key';
import { parseActorsFile } from './parse-actors-file';

const DEPLOY_KEY = 'op_deploy-key-1';
const ALICE_KEY = 'op_alice-key-1';

// The policy as a ConfigMap would hold it: no hashes at all.
const policy = `
actors:
  - id: agent:deploy-bot
    tools: [create_deployment]
    session_grant: automatic
  - id: agent:report-bot
    tools: "*"
admins:
  - id: ops:alice
`;

const keys = `
keys:
  - id: agent:deploy-bot
    api_keys_sha256: [${hashApiKey(DEPLOY_KEY)}, ${hashApiKey('op_deploy-key-2').toUpperCase()}]
  - id: agent:report-bot
    api_keys_sha256: [${hashApiKey('op_report')}]
  - id: ops:alice
    api_keys_sha256: [${hashApiKey(ALICE_KEY)}]
`;

function problems(policyText: string, keysText?: string): ActorsFileError {
  try {
    parseActorsFile(policyText, 'actors.yaml', keysText === undefined ? undefined : { text: keysText, file: 'actor-keys.yaml' });
  } catch (error) {
    expect(error).toBeInstanceOf(ActorsFileError);
    return error as ActorsFileError;
  }
  throw new Error('expected an ActorsFileError');
}

describe('parseActorsFile with a keys file (ONCEPORT_ACTOR_KEYS_FILE)', () => {
  it('joins the hashes to actors and admins by id, lower-cased', () => {
    const file = parseActorsFile(policy, 'actors.yaml', { text: keys, file: 'actor-keys.yaml' });
    expect(file.actors).toEqual([
      {
        id: 'agent:deploy-bot',
        apiKeysSha256: [hashApiKey(DEPLOY_KEY), hashApiKey('op_deploy-key-2')],
        tools: ['create_deployment'],
        sessionGrant: 'automatic',
      },
      { id: 'agent:report-bot', apiKeysSha256: [hashApiKey('op_report')], tools: '*', sessionGrant: 'human' },
    ]);
    expect(file.admins).toEqual([{ id: 'ops:alice', apiKeysSha256: [hashApiKey(ALICE_KEY)] }]);
  });

  it('lets some identities keep their hashes in the actors file when the keys file does not list them', () => {
    const mixed = policy.replace('  - id: ops:alice\n', `  - id: ops:alice\n    api_keys_sha256: [${hashApiKey(ALICE_KEY)}]\n`);
    const file = parseActorsFile(mixed, 'actors.yaml', { text: keys.split('  - id: ops:alice')[0] ?? '', file: 'actor-keys.yaml' });
    expect(file.admins).toEqual([{ id: 'ops:alice', apiKeysSha256: [hashApiKey(ALICE_KEY)] }]);
  });

  it('versions the policy alone: rotating a key in the keys file keeps the policy version', () => {
    const before = parseActorsFile(policy, 'actors.yaml', { text: keys, file: 'actor-keys.yaml' }).policyVersion;
    const rotated = keys.replace(hashApiKey('op_report'), hashApiKey('op_report-2'));
    expect(parseActorsFile(policy, 'actors.yaml', { text: rotated, file: 'actor-keys.yaml' }).policyVersion).toBe(before);
  });

  it('refuses an id of the keys file that is neither an actor nor an admin, naming the keys file and line', () => {
    const error = problems(policy, `${keys}  - id: agent:ghost\n    api_keys_sha256: [${hashApiKey('op_ghost')}]\n`);
    expect(error.issues).toEqual([expect.objectContaining({ code: 'unknown_id', file: 'actor-keys.yaml', path: 'keys[3].id', line: 9 })]);
    expect(error.message).toContain(
      'actor-keys.yaml: keys[3].id: got "agent:ghost", which actors.yaml declares neither under actors: nor admins:; expected the id of an actor or admin of actors.yaml',
    );
  });

  it('refuses an actor or admin with key hashes in neither file, in the actors file at its line', () => {
    const error = problems(policy, keys.split('  - id: ops:alice')[0] ?? '');
    expect(error.issues).toEqual([
      expect.objectContaining({ code: 'missing_keys', file: 'actors.yaml', path: 'admins[0].api_keys_sha256', line: 9 }),
    ]);
    expect(error.message).toContain(
      'got no key hashes for "ops:alice", neither here nor under keys: in actor-keys.yaml; expected an entry { id: ops:alice, api_keys_sha256: [...] } in actor-keys.yaml (ONCEPORT_ACTOR_KEYS_FILE)',
    );
  });

  it('refuses an actor without hashes when there is no keys file (the single-file form)', () => {
    const error = problems(policy);
    expect(error.issues.map((issue) => [issue.code, issue.path])).toEqual([
      ['missing_keys', 'actors[0].api_keys_sha256'],
      ['missing_keys', 'actors[1].api_keys_sha256'],
      ['missing_keys', 'admins[0].api_keys_sha256'],
    ]);
    expect(error.issues[0]?.message).toContain(
      'actors.yaml: actors[0].api_keys_sha256: got nothing (the field is missing); expected a list of key hashes (or ONCEPORT_ACTOR_KEYS_FILE',
    );
  });

  it('refuses an id with hashes in both files as ambiguous, without echoing either hash', () => {
    const both = policy.replace('    tools: "*"\n', `    tools: "*"\n    api_keys_sha256: [${hashApiKey('op_report-old')}]\n`);
    const error = problems(both, keys);
    expect(error.issues).toEqual([
      expect.objectContaining({ code: 'keys_in_both_files', file: 'actor-keys.yaml', path: 'keys[1].api_keys_sha256', line: 6 }),
    ]);
    expect(error.message).toContain(
      'got key hashes for "agent:report-bot", which actors.yaml also lists at actors[1].api_keys_sha256; expected each identity\'s key hashes in one file only',
    );
    expect(error.message).not.toContain(hashApiKey('op_report'));
    expect(error.message).not.toContain(hashApiKey('op_report-old'));
  });

  it('refuses an id listed twice in the keys file, and a key shared across the two files', () => {
    const twice = problems(policy, `${keys}  - id: ops:alice\n    api_keys_sha256: [${hashApiKey('op_alice-2')}]\n`);
    expect(twice.issues).toEqual([expect.objectContaining({ code: 'duplicate_id', file: 'actor-keys.yaml', path: 'keys[3].id' })]);
    const mixed = policy.replace('  - id: ops:alice\n', `  - id: ops:alice\n    api_keys_sha256: [${hashApiKey(DEPLOY_KEY)}]\n`);
    const shared = problems(mixed, keys.split('  - id: ops:alice')[0] ?? '');
    expect(shared.issues).toEqual([
      expect.objectContaining({
        code: 'duplicate_key',
        file: 'actors.yaml',
        path: 'admins[0].api_keys_sha256[0]',
        found: 'a key hash already listed at actor-keys.yaml: keys[0].api_keys_sha256[0] (agent:deploy-bot)',
      }),
    ]);
  });

  it('checks the keys file as strictly as the actors file: unknown fields, bad hashes never echoed, YAML syntax', () => {
    const error = problems(
      policy,
      `keys:\n  - id: agent:deploy-bot\n    api_keys: [x]\n  - id: agent:report-bot\n    api_keys_sha256: [${DEPLOY_KEY}]\n`,
    );
    expect(error.issues.map((issue) => [issue.code, issue.file, issue.path])).toEqual([
      ['invalid_field', 'actor-keys.yaml', 'keys[0].api_keys_sha256'],
      ['unknown_field', 'actor-keys.yaml', 'keys[0].api_keys'],
      ['invalid_field', 'actor-keys.yaml', 'keys[1].api_keys_sha256[0]'],
    ]);
    expect(error.message).toContain('expected one of the known fields id | api_keys_sha256');
    expect(error.message).not.toContain(DEPLOY_KEY);
    expect(problems(policy, 'keys: [\n').issues[0]).toMatchObject({ code: 'yaml_syntax', file: 'actor-keys.yaml' });
    expect(problems(policy, 'actors: []\n').issues.map((issue) => issue.path)).toEqual(['keys', 'actors']);
  });
});
