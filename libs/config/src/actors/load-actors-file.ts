import { readFile } from 'node:fs/promises';
import { type ActorsFileIssue, ActorsFileError, actorsFileIssue } from './actors-file-error';
import { type ActorsFile } from './actors-file.types';
import { parseActorsFile } from './parse-actors-file';

/**
 * Reads and validates the actors file (`ONCEPORT_ACTORS_FILE`) and, when given, the keys file
 * (`ONCEPORT_ACTOR_KEYS_FILE`) holding the key hashes apart from the policy. Throws
 * {@link ActorsFileError} naming the file, every bad field path and what is expected.
 *
 * @example const directory = new ActorDirectory(await loadActorsFile(env.ONCEPORT_ACTORS_FILE, env.ONCEPORT_ACTOR_KEYS_FILE));
 */
export async function loadActorsFile(path: string, keysPath?: string): Promise<ActorsFile> {
  const [text, keysText] = await Promise.all([
    readText(path, 'a readable YAML file with actors: and admins: (ONCEPORT_ACTORS_FILE)'),
    keysPath === undefined ? null : readText(keysPath, 'a readable YAML file with keys: (ONCEPORT_ACTOR_KEYS_FILE)'),
  ]);
  const unreadable = [text, keysText].filter((read): read is ActorsFileIssue => typeof read === 'object' && read !== null);
  if (unreadable.length > 0) throw new ActorsFileError(unreadable);
  return parseActorsFile(text as string, path, keysPath === undefined ? undefined : { text: keysText as string, file: keysPath });
}

/** The file's text, or the issue saying why it cannot be read. */
async function readText(path: string, expected: string): Promise<string | ActorsFileIssue> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    const found =
      code === 'ENOENT' ? 'a path that does not exist' : code === 'EISDIR' ? 'a directory' : `a file that cannot be read (${code})`;
    return actorsFileIssue({ code: 'unreadable_file', file: path, path: '', line: null, found, expected });
  }
}
