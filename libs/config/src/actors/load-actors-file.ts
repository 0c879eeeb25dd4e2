import { readFile } from 'node:fs/promises';
import { ActorsFileError, actorsFileIssue } from './actors-file-error';
import { type ActorsFile } from './actors-file.types';
import { parseActorsFile } from './parse-actors-file';

/**
 * Reads and validates the actors file (`ONCEPORT_ACTORS_FILE`). Throws {@link ActorsFileError}
 * naming the file, every bad field path and what is expected.
 *
 * @example const directory = new ActorDirectory(await loadActorsFile(env.ONCEPORT_ACTORS_FILE));
 */
export async function loadActorsFile(path: string): Promise<ActorsFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    const found = code === 'ENOENT' ? 'a path that does not exist' : code === 'EISDIR' ? 'a directory' : `a file that cannot be read (${code})`;
    throw new ActorsFileError([
      actorsFileIssue({ code: 'unreadable_file', file: path, path: '', line: null, found, expected: 'a readable YAML file with actors: and admins: (ONCEPORT_ACTORS_FILE)' }),
    ]);
  }
  return parseActorsFile(text, path);
}
