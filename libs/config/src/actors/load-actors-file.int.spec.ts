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
    await writeFile(path, `actors:\n  - id: agent:a\n    api_keys_sha256: [${hashApiKey('op_a')}]\n    tools: "*"\n    session_grant: automatic\n`);
    const directory = await ActorDirectory.load(path);
    expect(directory.source.file).toBe(path);
    expect(directory.authenticate('op_a')?.sessionGrant).toBe('automatic');
  });

  it('names the path and the variable when the file is missing or a directory', async () => {
    const missing = await failure(loadActorsFile(join(dir, 'nope.yaml')));
    expect(missing.message).toContain(`${join(dir, 'nope.yaml')}: got a path that does not exist; expected a readable YAML file with actors: and admins: (ONCEPORT_ACTORS_FILE)`);
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
