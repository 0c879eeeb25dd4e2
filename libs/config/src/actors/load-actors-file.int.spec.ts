import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ActorDirectory } from './actor-directory';
import { ActorsFileError } from './actors-file-error';
import { hashApiKey } from './api-key';
import { loadActorsFile } from './load-actors-file';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'onceport-actors-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function failure(run: Promise<unknown>): Promise<ActorsFileError> {
  try {
    await run;
  } catch (error) {
    expect(error).toBeInstanceOf(ActorsFileError);
    return error as ActorsFileError;
  }
  throw new Error('expected loadActorsFile to fail');
}

describe('loadActorsFile (real files)', () => {
  it('loads a file from disk into a directory that authenticates', async () => {
    const path = join(dir, 'actors.yaml');
    await writeFile(
      path,
      `actors:\n  - id: agent:a\n    api_keys_sha256: [${hashApiKey('op_a')}]\n    tools: "*"\n    session_grant: automatic\n`,
    );
    const directory = await ActorDirectory.load(path);
    expect(directory.source.file).toBe(path);
    expect(directory.authenticate('op_a')?.sessionGrant).toBe('automatic');
  });

  it('names the path and the variable when the file is missing or a directory', async () => {
    const missing = await failure(loadActorsFile(join(dir, 'nope.yaml')));
    expect(missing.message).toContain(
      `${join(dir, 'nope.yaml')}: got a path that does not exist; expected a readable YAML file with actors: and admins: (ONCEPORT_ACTORS_FILE)`,
    );
    expect((await failure(loadActorsFile(dir))).issues[0]?.found).toBe('a directory');
  });

  it('reports an unreadable file with its error code', async () => {
    if (process.getuid?.() === 0) return; // root reads anything: nothing to show here
    const path = join(dir, 'locked.yaml');
    await writeFile(path, 'actors: []\n');
    await chmod(path, 0o000);
    expect((await failure(loadActorsFile(path))).issues[0]?.found).toBe('a file that cannot be read (EACCES)');
  });

  it('reports problems with the file name and line', async () => {
    const path = join(dir, 'actors.yaml');
    await writeFile(path, 'actors:\n  - id: "bad id"\n    api_keys_sha256: [x]\n    tools: []\n');
    const error = await failure(loadActorsFile(path));
    expect(error.issues.map((issue) => issue.message)).toEqual([
      `${path}: actors[0].id: got "bad id"; expected an identity such as agent:deploy-bot or ops:alice (letters, digits and . _ : @ / + -, at most 128) (line 2)`,
      expect.stringContaining(`${path}: actors[0].api_keys_sha256[0]: got a value that is not 64 hex characters`),
    ]);
  });
});

describe('loadActorsFile with ONCEPORT_ACTOR_KEYS_FILE (real files)', () => {
  it('reads the policy and the key hashes from their two files into a directory that authenticates', async () => {
    const policy = join(dir, 'actors.yaml');
    const keys = join(dir, 'actor-keys.yaml');
    await writeFile(policy, 'actors:\n  - id: agent:a\n    tools: "*"\nadmins:\n  - id: ops:alice\n');
    await writeFile(
      keys,
      `keys:\n  - id: agent:a\n    api_keys_sha256: [${hashApiKey('op_a')}]\n  - id: ops:alice\n    api_keys_sha256: [${hashApiKey('op_alice')}]\n`,
    );
    const directory = await ActorDirectory.load(policy, keys);
    expect(directory.authenticate('op_a')?.id).toBe('agent:a');
    expect(directory.authenticateAdmin('op_alice')?.id).toBe('ops:alice');
    expect(directory.authenticate('op_alice')).toBeNull();
  });

  it('names both variables when both files are missing, and the keys file alone when only it is', async () => {
    const policy = join(dir, 'actors.yaml');
    const both = await failure(loadActorsFile(policy, join(dir, 'keys.yaml')));
    expect(both.issues.map((issue) => issue.message)).toEqual([
      `${policy}: got a path that does not exist; expected a readable YAML file with actors: and admins: (ONCEPORT_ACTORS_FILE)`,
      `${join(dir, 'keys.yaml')}: got a path that does not exist; expected a readable YAML file with keys: (ONCEPORT_ACTOR_KEYS_FILE)`,
    ]);
    await writeFile(policy, 'actors: []\n');
    expect((await failure(loadActorsFile(policy, dir))).issues).toEqual([expect.objectContaining({ file: dir, found: 'a directory' })]);
  });

  it('reports an id of the keys file the actors file does not declare, with the keys file path', async () => {
    const policy = join(dir, 'actors.yaml');
    const keys = join(dir, 'actor-keys.yaml');
    await writeFile(policy, `actors:\n  - id: agent:a\n    api_keys_sha256: [${hashApiKey('op_a')}]\n    tools: []\n`);
    await writeFile(keys, `keys:\n  - id: agent:b\n    api_keys_sha256: [${hashApiKey('op_b')}]\n`);
    const error = await failure(ActorDirectory.load(policy, keys));
    expect(error.message).toContain(`${keys}: keys[0].id: got "agent:b", which ${policy} declares neither under actors: nor admins:`);
  });
});
